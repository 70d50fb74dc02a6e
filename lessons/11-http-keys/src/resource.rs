//! Each payment's own URI, `/payments/pay_17`. A 201 without `Location` says that the resource
//! it created is the request's target, `/payments` itself (RFC 9110, section 15.3.2), so the 201
//! names the payment's URI, and `GET` on it shows the payment as it is now. The stored response
//! stays what it was: a replay after a refund still says `succeeded`, and the payment's URI
//! says `refunded`. Each lesson says where its payments are kept ([`ShowPayment`]): lesson 11
//! in `payments`, lesson 12 in its `charges`.

use std::future::Future;
use std::pin::Pin;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sqlx::PgPool;

use crate::Payment;
use crate::problem::Problem;
use crate::server::{Api, authenticated};

/// The `Location` of the payment a 201's body shows, from the `id` the body already holds: the
/// handler stores the body and nothing else, so a replay, sent from the stored body, names the
/// URI the first response named. `None` for a body whose id is not one plain path segment.
pub(crate) fn location_of(body: &str) -> Option<HeaderValue> {
    let body: serde_json::Value = serde_json::from_str(body).ok()?;
    let id = body["id"].as_str()?;
    // URI-unreserved characters only (RFC 3986): an id never reaches into the path or a query.
    let unreserved = |b: u8| b.is_ascii_alphanumeric() || b"-._~".contains(&b);
    if id.is_empty() || !id.bytes().all(unreserved) {
        return None;
    }
    HeaderValue::from_str(&format!("/payments/{id}")).ok()
}

/// `GET /payments/{id}`: the client's own payment, as it is now (200), or a 404.
pub(crate) async fn show_payment(
    State(api): State<Api>,
    id: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
) -> Response {
    let client = match authenticated(&headers) {
        Ok(client) => client,
        Err(problem) => return problem.into_response(),
    };
    // A segment axum cannot decode names no payment either.
    let id = id.map(|Path(id)| id).unwrap_or_default();
    let shown = match number_of(&id) {
        Some(number) => (api.show)(&api.pool, client, number).await,
        None => Ok(None),
    };
    match shown {
        Ok(Some(body)) => {
            let json = HeaderValue::from_static("application/json");
            (StatusCode::OK, [(header::CONTENT_TYPE, json)], body).into_response()
        }
        // Another client's payment is answered as one that was never made: a 403 would tell
        // the caller that the id exists, and ids are numbered in order.
        Ok(None) => Problem::new(
            StatusCode::NOT_FOUND,
            "payment-not-found",
            "No such payment",
            format!(
                "{client} has no payment {id}; a payment's URI is the Location of the 201 that \
                 created it"
            ),
        )
        .into_response(),
        Err(error) => Problem::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "payment-unreadable",
            "The payment could not be read",
            format!("reading it failed ({})", kit::describe_sqlx(&error)),
        )
        .with_sqlstate(kit::code_of(&error))
        .into_response(),
    }
}

/// The body a 201 shows of `client`'s payment numbered `number` (`pay_17` is 17), as the
/// payment is now, or `None` if `client` has no such payment: another client's is as absent as
/// one never made. A lesson's own function, for the table it keeps its payments in.
pub type ShowPayment = for<'a> fn(&'a PgPool, &'a str, i64) -> Showing<'a>;

/// What a [`ShowPayment`] returns.
pub type Showing<'a> =
    Pin<Box<dyn Future<Output = Result<Option<String>, sqlx::Error>> + Send + 'a>>;

/// Lesson 11's payments, in its `payments` table.
pub fn from_payments<'a>(pool: &'a PgPool, client: &'a str, number: i64) -> Showing<'a> {
    Box::pin(async move {
        let mut conn = pool.acquire().await?;
        let payment = Payment::find(&mut conn, number).await?;
        Ok(payment
            .filter(|payment| payment.client_id == client)
            .map(|payment| payment.response().body))
    })
}

/// The number in `id` (`pay_17` is 17). Only the form a 201 shows is an id: no `pay_017`, no
/// `pay_+17`, so each payment has one URI.
fn number_of(id: &str) -> Option<i64> {
    (id.strip_prefix("pay_")).and_then(|n| n.parse::<i64>().ok().filter(|k| k.to_string() == n))
}

#[cfg(test)]
mod tests {
    //! `GET /payments/{id}` against the lesson's payments table, over HTTP: no handler runs.

    use sqlx::PgPool;

    use super::location_of;
    use crate::server::Server;
    use crate::{Handler, Payment, PaymentRequest, Reply};

    /// A database with the lesson's base schema, acme's payment pay_1 and globex's pay_2, and
    /// the API in front of `handler`.
    async fn api(handler: impl Handler) -> (kit::TestDatabase, PgPool, Server) {
        let schema = kit::Schema::from_dirs([crate::subject::BASE_MIGRATIONS]);
        let db = kit::TestDatabase::create(&schema).await.unwrap();
        let pool = db.pool(2).await.unwrap();
        sqlx::query(
            "INSERT INTO payments (client_id, amount_cents, currency)
             VALUES ('acme', 1500, 'eur'), ('globex', 2500, 'eur')",
        )
        .execute(&pool)
        .await
        .unwrap();
        let server = Server::start(pool.clone(), handler).await.unwrap();
        (db, pool, server)
    }

    /// The handler behind a GET: none, since only `POST /payments` calls one.
    fn no_handler() -> impl Handler {
        |_: PgPool, _: PaymentRequest| async {
            Err::<Reply, _>(sqlx::Error::Protocol(
                "only POST /payments calls the handler".into(),
            ))
        }
    }

    /// Status, content type and body of `GET path`, as `client` (or nobody).
    async fn get(server: &Server, client: Option<&str>, path: &str) -> (u16, String, String) {
        let mut request = reqwest::Client::new().get(format!("{}{path}", server.url()));
        if let Some(client) = client {
            request = request.header("authorization", format!("Bearer {client}"));
        }
        let response = request.send().await.expect("an answer");
        let status = response.status().as_u16();
        let content_type = (response.headers().get("content-type"))
            .map_or(String::new(), |v| v.to_str().unwrap_or_default().into());
        (status, content_type, response.text().await.expect("a body"))
    }

    #[tokio::test]
    async fn a_payment_is_shown_to_its_client_as_it_is_now() {
        let (_db, pool, server) = api(no_handler()).await;
        let (status, content_type, body) = get(&server, Some("acme"), "/payments/pay_1").await;
        assert_eq!((status, content_type.as_str()), (200, "application/json"));
        let shown: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (shown["id"].as_str(), shown["status"].as_str()),
            (Some("pay_1"), Some("succeeded"))
        );
        sqlx::query("UPDATE payments SET status = 'refunded' WHERE id = 1")
            .execute(&pool)
            .await
            .unwrap();
        let (_, _, body) = get(&server, Some("acme"), "/payments/pay_1").await;
        let shown: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            shown["status"], "refunded",
            "GET on a payment's URI shows the payment as it is now, refunds and all (only a \
             replay of the POST answers with the response stored when it was created); got {body}"
        );
        server.stop().await;
    }

    /// globex's pay_2 is, to acme, exactly as absent as a payment never made, and so is an id in
    /// any other form than the one a 201 shows.
    #[tokio::test]
    async fn another_clients_payment_is_as_unknown_as_one_never_made() {
        let (_db, _pool, server) = api(no_handler()).await;
        let (status, content_type, never_made) =
            get(&server, Some("acme"), "/payments/pay_9").await;
        assert_eq!(
            (status, content_type.as_str()),
            (404, "application/problem+json")
        );
        let (status, _, globex) = get(&server, Some("acme"), "/payments/pay_2").await;
        assert_eq!(
            (status, globex.replace("pay_2", "pay_9")),
            (404, never_made.clone()),
            "acme asked for globex's payment: it must get the 404 an unknown id gets, word for \
             word, or an id tells one client what another has"
        );
        for id in ["1", "pay_01", "pay_+1", "pay_x", "pay_", "pay_1.json"] {
            let (status, _, body) = get(&server, Some("acme"), &format!("/payments/{id}")).await;
            assert_eq!(
                status, 404,
                "{id} is not a payment's id (pay_1 is); got {body}"
            );
        }
        let (status, _, body) = get(&server, None, "/payments/pay_1").await;
        assert_eq!(
            status, 401,
            "a payment is shown to its authenticated client only; got {body}"
        );
        server.stop().await;
    }

    /// The loop a client follows: POST, then GET the `Location` of the 201. The handler here
    /// creates the payment and answers with `Payment::response`, as the lesson's handlers do.
    #[tokio::test]
    async fn the_location_of_a_201_shows_the_payment_it_created() {
        let paying = |pool: PgPool, request: PaymentRequest| async move {
            let mut conn = pool.acquire().await?;
            let payment = Payment::create(&mut conn, &request).await?;
            Ok(Reply::Created(payment.response()))
        };
        let (_db, _pool, server) = api(paying).await;
        let created = reqwest::Client::new()
            .post(format!("{}/payments", server.url()))
            .header("authorization", "Bearer acme")
            .header("idempotency-key", "k-1")
            .header("content-type", "application/json")
            .body(r#"{"amount_cents": 700, "currency": "eur"}"#)
            .send()
            .await
            .expect("an answer");
        let location = (created.headers().get("location"))
            .map(|v| v.to_str().unwrap().to_string())
            .expect("a 201 names the payment it created in Location");
        let created = created.text().await.unwrap();
        let (status, _, shown) = get(&server, Some("acme"), &location).await;
        assert_eq!(
            (status, shown.as_str()),
            (200, created.as_str()),
            "GET {location}, the Location of a 201, must show the payment that 201 created"
        );
        server.stop().await;
    }

    #[test]
    fn the_location_is_the_id_the_body_shows_as_one_path_segment() {
        let location = |body: &str| location_of(body).map(|v| v.to_str().unwrap().to_string());
        assert_eq!(
            location(r#"{"id":"pay_7","object":"payment"}"#).as_deref(),
            Some("/payments/pay_7")
        );
        for body in [
            r#"{"object":"payment"}"#,
            r#"{"id":7}"#,
            r#"{"id":""}"#,
            "not json",
        ] {
            assert_eq!(location(body), None, "{body}");
        }
        for id in [
            "../clients",
            "pay_7?refund=1",
            "pay 7",
            "pay_7#x",
            "p\u{e9}",
        ] {
            let body = serde_json::json!({ "id": id }).to_string();
            assert_eq!(
                location(&body),
                None,
                "{id:?} is not one plain path segment"
            );
        }
    }
}
