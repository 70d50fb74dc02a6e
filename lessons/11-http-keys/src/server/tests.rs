//! The API over HTTP, with handlers that answer as told: what it refuses before the handler runs
//! (each refusal a 4xx with an RFC 9457 problem saying what was wrong, and the handler never
//! called, so nothing is written), and the headers it sends with each reply.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::Stored;

/// Answers 201 and counts its calls: the API, not a handler, is under test here.
fn counting() -> (Arc<AtomicUsize>, impl Handler) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let handler = move |_: PgPool, _: PaymentRequest| {
        let counted = Arc::clone(&counted);
        async move {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(Reply::Created(Stored {
                status: 201,
                body: "{}".into(),
            }))
        }
    };
    (calls, handler)
}

async fn api(handler: impl Handler) -> Server {
    // The handler under test never touches it: a pool that connects lazily, to nowhere.
    let pool = sqlx::postgres::PgPoolOptions::new()
        .connect_lazy("postgres://nobody@127.0.0.1:1/none")
        .expect("a lazy pool");
    Server::start(pool, handler).await.expect("the API starts")
}

async fn post(
    server: &Server,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Option<String>, serde_json::Value) {
    let response = send(server, headers, body.to_string()).await;
    let status = response.status().as_u16();
    let content_type = (response.headers().get("content-type"))
        .map(|v| v.to_str().unwrap_or_default().to_string());
    let body = response.text().await.expect("a body");
    (
        status,
        content_type,
        serde_json::from_str(&body).unwrap_or_default(),
    )
}

/// `POST /payments` with `headers` and `body`, its body declared JSON unless `headers`
/// declare it otherwise.
async fn send(server: &Server, headers: &[(&str, &str)], body: String) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(format!("{}/payments", server.url()))
        .body(body);
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("content-type"))
    {
        request = request.header("content-type", "application/json");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.expect("an answer")
}

const BODY: &str = r#"{"amount_cents": 1500, "currency": "eur"}"#;

#[tokio::test]
async fn each_bad_request_is_refused_with_a_problem_and_never_reaches_the_handler() {
    let (calls, handler) = counting();
    let server = api(handler).await;
    let auth = ("authorization", "Bearer acme");
    let long_key = "k".repeat(256);
    // The headers, the body, the status and the problem's type.
    type Case<'a> = (Vec<(&'a str, &'a str)>, &'a str, u16, &'a str);
    let cases: Vec<Case> = vec![
        (
            vec![("idempotency-key", "k-1")],
            BODY,
            401,
            "unauthenticated",
        ),
        (vec![auth], BODY, 400, "idempotency-key-missing"),
        (
            vec![auth, ("idempotency-key", "")],
            BODY,
            400,
            "idempotency-key-malformed",
        ),
        (
            vec![auth, ("idempotency-key", &long_key)],
            BODY,
            400,
            "idempotency-key-malformed",
        ),
        (
            vec![auth, ("idempotency-key", "k 1")],
            BODY,
            400,
            "idempotency-key-malformed",
        ),
        (
            vec![auth, ("idempotency-key", "k-1")],
            "{\"amount_cents\":",
            400,
            "body-malformed",
        ),
        (
            vec![auth, ("idempotency-key", "k-1")],
            r#"{"amount_cents": 1500, "currency": "eur", "tip": 1}"#,
            400,
            "body-malformed",
        ),
        (
            vec![auth, ("idempotency-key", "k-1")],
            r#"{"amount_cents": 0, "currency": "eur"}"#,
            400,
            "body-malformed",
        ),
        (
            vec![auth, ("idempotency-key", "k-1")],
            r#"{"amount_cents": 1500, "currency": "EURO"}"#,
            400,
            "body-malformed",
        ),
    ];
    for (headers, body, status, problem) in cases {
        let (got, content_type, problem_body) = post(&server, &headers, body).await;
        let what = format!("{headers:?} {body}: {got} {problem_body}");
        assert_eq!(got, status, "{what}");
        assert_eq!(
            content_type.as_deref(),
            Some("application/problem+json"),
            "{what}"
        );
        assert_eq!(
            problem_body["type"],
            format!("/problems/{problem}"),
            "{what}"
        );
        assert_eq!(problem_body["status"], status, "{what}");
        assert!(
            problem_body["detail"]
                .as_str()
                .is_some_and(|d| !d.is_empty()),
            "{what}"
        );
    }
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "a refused request reached the handler"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_good_request_reaches_the_handler_with_its_client_and_key() {
    let (calls, handler) = counting();
    let server = api(handler).await;
    // JSON, however the client spells its media type.
    for content_type in ["application/json", "Application/JSON; charset=utf-8"] {
        let headers = [
            ("authorization", "Bearer acme"),
            ("idempotency-key", "\"k-1\""),
            ("content-type", content_type),
        ];
        let (status, answered_as, _) = post(&server, &headers, BODY).await;
        assert_eq!(
            (status, answered_as.as_deref()),
            (201, Some("application/json")),
            "a body sent as {content_type} is JSON"
        );
    }
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    server.stop().await;
}

/// `curl -d '{…}'` sends its JSON as a form. The API reads JSON only, and says so: a 415
/// whose `Accept` names the type to send (RFC 9110, 15.5.16), and no `Accept-Encoding`,
/// which would say the body's content coding was the problem (RFC 9110, 12.5.3).
#[tokio::test]
async fn a_body_not_declared_json_is_a_415_naming_the_type_to_send() {
    let (calls, handler) = counting();
    let server = api(handler).await;
    for (content_type, says) in [
        (Some("application/x-www-form-urlencoded"), "curl -d"),
        (Some("text/plain"), "text/plain"),
        (Some("application/jsonl"), "application/jsonl"),
        (None, "no Content-Type"),
    ] {
        let mut headers = vec![("authorization", "Bearer acme"), ("idempotency-key", "k-1")];
        let response = match content_type {
            Some(content_type) => {
                headers.push(("content-type", content_type));
                send(&server, &headers, BODY.into()).await
            }
            // reqwest adds no Content-Type to a body of bytes.
            None => reqwest::Client::new()
                .post(format!("{}/payments", server.url()))
                .header("authorization", "Bearer acme")
                .header("idempotency-key", "k-1")
                .body(BODY)
                .send()
                .await
                .expect("an answer"),
        };
        let what = format!("a JSON body sent as {content_type:?}");
        let header = |name| (response.headers().get(name)).map(|v| v.to_str().unwrap().to_string());
        assert_eq!(
            (response.status().as_u16(), header("accept").as_deref()),
            (415, Some("application/json")),
            "{what} must be refused with 415 and Accept: application/json, not read as JSON \
             on the chance that it parses"
        );
        assert_eq!(
            header("content-type").as_deref(),
            Some("application/problem+json"),
            "{what}"
        );
        assert_eq!(
            header("accept-encoding"),
            None,
            "{what}: the coding is not the problem"
        );
        let problem: serde_json::Value =
            serde_json::from_str(&response.text().await.expect("a body")).unwrap_or_default();
        assert_eq!(
            problem["type"], "/problems/media-type-unsupported",
            "{what}"
        );
        let detail = problem["detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains(says),
            "{what}: the detail must say {says:?}: {detail}"
        );
    }
    assert_eq!(calls.load(Ordering::SeqCst), 0, "a 415 reached the handler");
    server.stop().await;
}

/// The limit is [`MAX_BODY_BYTES`], and going over it is a problem like any other refusal,
/// not axum's plain text. A body of exactly the limit is read (JSON allows the padding).
#[tokio::test]
async fn a_body_over_the_limit_is_a_413_problem_and_one_at_the_limit_is_read() {
    let (calls, handler) = counting();
    let server = api(handler).await;
    let headers = [("authorization", "Bearer acme"), ("idempotency-key", "k-1")];
    let at_the_limit = BODY.to_string() + &" ".repeat(MAX_BODY_BYTES - BODY.len());
    let over = format!("{at_the_limit} ");
    let response = send(&server, &headers, over).await;
    let status = response.status().as_u16();
    let content_type =
        (response.headers().get("content-type")).map(|v| v.to_str().unwrap().to_string());
    let problem: serde_json::Value =
        serde_json::from_str(&response.text().await.unwrap()).unwrap_or_default();
    assert_eq!(
        (status, content_type.as_deref()),
        (413, Some("application/problem+json")),
        "a body one byte over {MAX_BODY_BYTES} bytes must be a 413 with a problem body, as \
         every other refusal is; got {problem}"
    );
    assert_eq!(problem["type"], "/problems/body-too-large");
    assert_eq!(problem["status"], 413);
    let detail = problem["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains(&MAX_BODY_BYTES.to_string()),
        "the detail names the limit: {detail}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0, "a 413 reached the handler");
    let response = send(&server, &headers, at_the_limit).await;
    assert_eq!(
        response.status().as_u16(),
        201,
        "a body of {MAX_BODY_BYTES} bytes is read"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    server.stop().await;
}

/// The 201 names the payment's URI, from the id in the stored body, and a replay of it, sent
/// from the same stored body, names the same one: same status, body, content type and
/// `Location`, and `Idempotent-Replayed: true` besides.
#[tokio::test]
async fn a_201_and_its_replay_name_the_same_location() {
    let stored = Stored {
        status: 201,
        body: r#"{"id":"pay_7","object":"payment","status":"succeeded"}"#.into(),
    };
    let mut seen = Vec::new();
    for reply in [Reply::Created(stored.clone()), Reply::Replayed(stored)] {
        let handler = move |_: PgPool, _: PaymentRequest| {
            let reply = reply.clone();
            async move { Ok(reply) }
        };
        let server = api(handler).await;
        let headers = [("authorization", "Bearer acme"), ("idempotency-key", "k-1")];
        let response = send(&server, &headers, BODY.into()).await;
        let header = |name| (response.headers().get(name)).map(|v| v.to_str().unwrap().to_string());
        let (location, replayed) = (header("location"), header(REPLAYED));
        let content_type = header("content-type");
        let status = response.status().as_u16();
        seen.push((
            status,
            content_type,
            location,
            replayed,
            response.text().await.unwrap(),
        ));
        server.stop().await;
    }
    let (first, again) = (&seen[0], &seen[1]);
    assert_eq!(
        first.2.as_deref(),
        Some("/payments/pay_7"),
        "a 201 without Location says the payment created is /payments itself (RFC 9110, \
         15.3.2); it must name /payments/<the id in its body>"
    );
    assert_eq!(
        (again.0, &again.1, &again.2, &again.4),
        (first.0, &first.1, &first.2, &first.4),
        "a replay must give the client everything the first response gave it: the status, \
         the body, the content type and the payment's Location"
    );
    assert_eq!(
        (first.3.as_deref(), again.3.as_deref()),
        (None, Some("true"))
    );
}

#[tokio::test]
async fn in_flight_is_a_409_unavailable_a_503_both_with_retry_after_and_reuse_a_422() {
    for (reply, status, retry_after) in [
        (Reply::InFlight, 409, Some("1")),
        (
            Reply::Unavailable {
                retry_after_seconds: 27,
            },
            503,
            Some("27"),
        ),
        (Reply::KeyReused, 422, None),
    ] {
        let handler = move |_: PgPool, _: PaymentRequest| {
            let reply = reply.clone();
            async move { Ok(reply) }
        };
        let server = api(handler).await;
        let response = reqwest::Client::new()
            .post(format!("{}/payments", server.url()))
            .header("authorization", "Bearer acme")
            .header("idempotency-key", "k-1")
            .header("content-type", "application/json")
            .body(BODY)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), status);
        assert_eq!(
            response.headers().get("location"),
            None,
            "only a 201 names a payment"
        );
        let header = response.headers().get("retry-after");
        assert_eq!(header.map(|v| v.to_str().unwrap()), retry_after);
        let content_type = response.headers().get("content-type").unwrap();
        assert_eq!(content_type, "application/problem+json");
        let problem: serde_json::Value =
            serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
        assert_eq!(problem["status"], status);
        server.stop().await;
    }
}
