//! The payment API: `POST /payments` in front of the handler, with axum. Everything a request
//! can get wrong before the handler sees it is refused here, with a `400` (or `401`) whose body
//! is an RFC 9457 problem, and nothing is written: a missing or malformed `Idempotency-Key`, a
//! body that is not a payment. What the handler replies becomes the response: a stored one is
//! sent as it was stored, byte for byte.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use sqlx::PgPool;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::request::check_key;
use crate::{Handler, NewPayment, PaymentRequest, Reply};

/// The header that marks a response sent again for a retry (Stripe's name for it).
pub const REPLAYED: &str = "idempotent-replayed";

/// How long a client told "in flight" waits before it tries again, in seconds.
pub const RETRY_AFTER_SECONDS: u32 = 1;

/// The API's routes, on `pool`, answering with `handler`.
pub fn router<H: Handler>(pool: PgPool, handler: H) -> Router {
    routes(pool, AnyHandler::new(handler))
}

/// The routes for a handler of any type. Generic over the handler, axum's routing would be
/// compiled again in every test binary, once per crate under test; behind one type, it is
/// compiled once, here (lesson 11's three crates then built in about a sixth less time).
fn routes(pool: PgPool, handler: AnyHandler) -> Router {
    Router::new()
        .route("/payments", post(create_payment))
        .with_state(Api { pool, handler })
}

type Replying = Pin<Box<dyn Future<Output = Result<Reply, sqlx::Error>> + Send>>;

/// A handler, whatever its type.
#[derive(Clone)]
struct AnyHandler(Arc<dyn Fn(PgPool, PaymentRequest) -> Replying + Send + Sync>);

impl AnyHandler {
    fn new<H: Handler>(handler: H) -> AnyHandler {
        AnyHandler(Arc::new(move |pool, request| {
            Box::pin(handler.call(pool, request))
        }))
    }
}

#[derive(Clone)]
struct Api {
    pool: PgPool,
    handler: AnyHandler,
}

async fn create_payment(State(api): State<Api>, headers: HeaderMap, body: Bytes) -> Response {
    let request = match accept(&headers, &body) {
        Ok(request) => request,
        Err(problem) => return problem.into_response(),
    };
    match (api.handler.0)(api.pool, request).await {
        Ok(reply) => respond(reply),
        Err(error) => Problem {
            // What the database refused, by its SQLSTATE: a workbook's API says it, so that
            // the tests (and you, with curl) can read why; a public API would log it instead.
            sqlstate: kit::code_of(&error),
            ..Problem::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "handler-failed",
                "The payment could not be created",
                format!(
                    "the handler failed ({}); nothing it did was committed, so the request may \
                     be sent again with the same key",
                    kit::describe_sqlx(&error)
                ),
            )
        }
        .into_response(),
    }
}

/// The checks every request passes before the handler sees it.
fn accept(headers: &HeaderMap, body: &[u8]) -> Result<PaymentRequest, Problem> {
    let bad = |slug, detail: String| {
        Problem::new(
            StatusCode::BAD_REQUEST,
            slug,
            "The request is malformed",
            detail,
        )
    };
    let client = (headers.get(header::AUTHORIZATION))
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .filter(|client| !client.is_empty() && client.bytes().all(|b| b.is_ascii_graphic()))
        .ok_or_else(Problem::unauthenticated)?;
    let key = headers
        .get("idempotency-key")
        .ok_or_else(|| {
            bad(
                "idempotency-key-missing",
                "POST /payments needs an Idempotency-Key header: a string the client makes up \
                 once per payment and sends again with every retry of it"
                    .into(),
            )
        })?
        .to_str()
        .map_err(|_| {
            bad(
                "idempotency-key-malformed",
                "the Idempotency-Key header is not visible ASCII".into(),
            )
        })?;
    let key = check_key(key).map_err(|why| {
        bad(
            "idempotency-key-malformed",
            format!("the Idempotency-Key header is refused: {why}"),
        )
    })?;
    let payment: NewPayment = serde_json::from_slice(body).map_err(|e| {
        bad(
            "body-malformed",
            format!(
                "the body is not a payment ({e}); expected JSON like {{\"amount_cents\": 1500, \
                 \"currency\": \"eur\", \"description\": \"optional\"}}"
            ),
        )
    })?;
    if payment.amount_cents <= 0 {
        return Err(bad(
            "body-malformed",
            format!(
                "amount_cents is {}; a payment is for at least one cent",
                payment.amount_cents
            ),
        ));
    }
    if payment.currency.len() != 3 || !payment.currency.bytes().all(|b| b.is_ascii_lowercase()) {
        return Err(bad(
            "body-malformed",
            format!(
                "currency is {:?}; a currency is three lowercase letters (\"eur\")",
                payment.currency
            ),
        ));
    }
    Ok(PaymentRequest::new(client, key, payment))
}

/// The handler's reply, as HTTP.
fn respond(reply: Reply) -> Response {
    match reply {
        Reply::Created(stored) => stored_response(stored.status, stored.body, false),
        Reply::Replayed(stored) => stored_response(stored.status, stored.body, true),
        Reply::KeyReused => Problem::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "idempotency-key-reused",
            "This idempotency key was used for another request",
            "the key was first sent with a different request (method, path or body); a key \
             stands for one request, so send a new payment with a new key"
                .into(),
        )
        .into_response(),
        Reply::InFlight => {
            let mut response = Problem::new(
                StatusCode::CONFLICT,
                "idempotency-key-in-flight",
                "A request with this idempotency key is still being processed",
                "the first request with this key has not finished; send this one again later"
                    .into(),
            )
            .into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
            response
        }
        Reply::Unavailable {
            retry_after_seconds,
        } => {
            let mut response = Problem::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "outcome-not-known-yet",
                "The payment could not be finished now",
                "its outcome is not known yet; send the same request again, with the same key, \
                 after Retry-After seconds"
                    .into(),
            )
            .into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_seconds));
            response
        }
    }
}

fn stored_response(status: u16, body: String, replayed: bool) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if replayed {
        headers.insert(REPLAYED, HeaderValue::from_static("true"));
    }
    response
}

/// An RFC 9457 problem: `type` names the kind of problem (a URI reference, relative to the
/// API), `title` says it for people, `detail` says what was wrong with this request.
struct Problem {
    status: StatusCode,
    slug: &'static str,
    title: &'static str,
    detail: String,
    /// An extension member of the problem, for a failed handler.
    sqlstate: Option<String>,
}

impl Problem {
    fn new(status: StatusCode, slug: &'static str, title: &'static str, detail: String) -> Self {
        Problem {
            status,
            slug,
            title,
            detail,
            sqlstate: None,
        }
    }

    fn unauthenticated() -> Self {
        Problem::new(
            StatusCode::UNAUTHORIZED,
            "unauthenticated",
            "No client is authenticated",
            "send Authorization: Bearer <your client id>".into(),
        )
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let mut body = serde_json::json!({
            "type": format!("/problems/{}", self.slug),
            "title": self.title,
            "status": self.status.as_u16(),
            "detail": self.detail,
        });
        if let Some(code) = self.sqlstate {
            body["sqlstate"] = code.into();
        }
        let mut response = (self.status, body.to_string()).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if self.status == StatusCode::UNAUTHORIZED {
            (response.headers_mut())
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// The API on an ephemeral port of 127.0.0.1, for one connection, served by the future this
/// returns with the API's URL, in whatever task awaits it. A scripted request runs its API so:
/// dropping the task's future drops the request's handler right where it is, as a request
/// timeout or a client that hung up would. ([`Server`] spawns a task per connection, which
/// would outlive it.)
pub async fn one_connection<H: Handler>(
    pool: PgPool,
    handler: H,
) -> std::io::Result<(String, impl Future<Output = ()> + Send)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    let service =
        hyper_util::service::TowerToHyperService::new(routes(pool, AnyHandler::new(handler)));
    let serving = async move {
        if let Ok((stream, _)) = listener.accept().await {
            let io = hyper_util::rt::TokioIo::new(stream);
            let connection = hyper::server::conn::http1::Builder::new();
            let _ = connection.serve_connection(io, service).await;
        }
    };
    Ok((url, serving))
}

/// The API, listening on an ephemeral port of 127.0.0.1 until dropped (or [`Server::stop`]).
pub struct Server {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Server {
    /// Serves `handler` on `pool`.
    pub async fn start<H: Handler>(pool: PgPool, handler: H) -> std::io::Result<Server> {
        Server::start_on("127.0.0.1:0", pool, handler).await
    }

    /// Serves `handler` on `pool`, at `addr` (`127.0.0.1:0` for any free port).
    pub async fn start_on<H: Handler>(
        addr: &str,
        pool: PgPool,
        handler: H,
    ) -> std::io::Result<Server> {
        Server::serve(addr, routes(pool, AnyHandler::new(handler))).await
    }

    async fn serve(addr: &str, app: Router) -> std::io::Result<Server> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
        });
        Ok(Server {
            addr,
            stop: Some(stop),
            task,
        })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops listening, and returns once every request in progress has been answered.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = (&mut self.task).await;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    //! What the API refuses before the handler runs, over HTTP: each refusal is a 4xx with an
    //! RFC 9457 problem saying what was wrong, and the handler is never called, so nothing is
    //! written.

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
        let mut request = reqwest::Client::new()
            .post(format!("{}/payments", server.url()))
            .body(body.to_string());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.expect("an answer");
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
        let headers = [
            ("authorization", "Bearer acme"),
            ("idempotency-key", "\"k-1\""),
        ];
        let (status, content_type, _) = post(&server, &headers, BODY).await;
        assert_eq!(
            (status, content_type.as_deref()),
            (201, Some("application/json"))
        );
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        server.stop().await;
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
                .body(BODY)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status().as_u16(), status);
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
}
