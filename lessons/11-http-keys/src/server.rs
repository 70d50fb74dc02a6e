//! The payment API: `POST /payments` in front of the handler, and `GET /payments/{id}` for the
//! payment a 201 names in its `Location` (resource.rs), with axum. Everything a request can get
//! wrong before the handler sees it is refused here, with a `4xx` whose body is an RFC 9457
//! problem (problem.rs), and nothing is written: no client, a missing or malformed
//! `Idempotency-Key`, a body that is not JSON, too large, or not a payment. What the handler
//! replies becomes the response: a stored one is sent as it was stored, byte for byte.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use sqlx::PgPool;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::problem::Problem;
use crate::request::check_key;
use crate::resource::{ShowPayment, from_payments, location_of, show_payment};
use crate::{Handler, NewPayment, PaymentRequest, Reply, Stored};

/// The header that marks a response sent again for a retry (Stripe's name for it).
pub const REPLAYED: &str = "idempotent-replayed";

/// How long a client told "in flight" waits before it tries again, in seconds.
pub const RETRY_AFTER_SECONDS: u32 = 1;

/// The largest body the API reads, in bytes: axum's default, named here so that the 413 can say
/// it. A payment's JSON takes a few hundred.
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// The only media type `POST /payments` reads its body as.
const JSON: &str = "application/json";

/// The API's routes, on `pool`, answering with `handler` and showing payments with `show`.
pub fn router<H: Handler>(pool: PgPool, handler: H, show: ShowPayment) -> Router {
    routes(pool, AnyHandler::new(handler), show)
}

/// The routes for a handler of any type. Generic over the handler, axum's routing would be
/// compiled again in every test binary, once per crate under test; behind one type, it is
/// compiled once, here (lesson 11's three crates then built in about a sixth less time).
fn routes(pool: PgPool, handler: AnyHandler, show: ShowPayment) -> Router {
    Router::new()
        .route("/payments", post(create_payment))
        .route("/payments/{id}", get(show_payment))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(Api {
            pool,
            handler,
            show,
        })
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
pub(crate) struct Api {
    pub(crate) pool: PgPool,
    handler: AnyHandler,
    /// Where `GET /payments/{id}` reads a payment.
    pub(crate) show: ShowPayment,
}

/// The body comes as a `Result`, so that a body over the limit is refused with a problem like
/// every other refusal, not with axum's plain-text 413.
async fn create_payment(
    State(api): State<Api>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let request = match accept(&headers, body) {
        Ok(request) => request,
        Err(problem) => return problem.into_response(),
    };
    match (api.handler.0)(api.pool, request).await {
        Ok(reply) => respond(reply),
        // What the database refused, by its SQLSTATE: a workbook's API says it, so that the
        // tests (and you, with curl) can read why; a public API would log it instead.
        Err(error) => Problem::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "handler-failed",
            "The request failed",
            format!(
                "the handler failed ({}); whatever it had not committed was rolled back, and \
                 the request may be sent again with the same key",
                kit::describe_sqlx(&error)
            ),
        )
        .with_sqlstate(kit::code_of(&error))
        .into_response(),
    }
}

/// The client the request's bearer token names, or a 401.
pub(crate) fn authenticated(headers: &HeaderMap) -> Result<&str, Problem> {
    (headers.get(header::AUTHORIZATION))
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .filter(|client| !client.is_empty() && client.bytes().all(|b| b.is_ascii_graphic()))
        .ok_or_else(Problem::unauthenticated)
}

/// The checks every request passes before the handler sees it: who sends it, under which key,
/// and then its body: its media type, its size, and what it says.
fn accept(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<PaymentRequest, Problem> {
    let bad = |slug, detail: String| {
        Problem::new(
            StatusCode::BAD_REQUEST,
            slug,
            "The request is malformed",
            detail,
        )
    };
    let client = authenticated(headers)?;
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
    json_declared(headers)?;
    let body = body.map_err(unread)?;
    let payment: NewPayment = serde_json::from_slice(&body).map_err(|e| {
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

/// Whether the request says its body is JSON. A body sent as anything else (a form, which is
/// what `curl -d` sends unless told otherwise) is not read as JSON on the off chance that it
/// parses: it is a 415, with `Accept` naming the type the API takes (RFC 9110, sections 15.5.16
/// and 12.5.1). No `Content-Type` at all is a 415 too: RFC 9110, section 8.3, lets a recipient
/// take such a body for `application/octet-stream`, which is not JSON either.
fn json_declared(headers: &HeaderMap) -> Result<(), Problem> {
    let declared = headers.get(header::CONTENT_TYPE).map(|value| {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        let essence = value
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        (value, essence)
    });
    let (sent, hint) = match &declared {
        Some((_, essence)) if essence.eq_ignore_ascii_case(JSON) => return Ok(()),
        Some((value, essence))
            if essence.eq_ignore_ascii_case("application/x-www-form-urlencoded") =>
        {
            (
                format!("was sent as {value}"),
                " (curl -d sends that unless told otherwise: add -H 'Content-Type: application/json', \
             or use --json)",
            )
        }
        Some((value, _)) => (format!("was sent as {value}"), ""),
        None => ("has no Content-Type".to_string(), ""),
    };
    Err(Problem::new(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "media-type-unsupported",
        "The body is not in a format the API reads",
        format!(
            "POST /payments reads a JSON body, sent with Content-Type: {JSON}; this one \
             {sent}{hint}"
        ),
    )
    .with_header(header::ACCEPT, HeaderValue::from_static(JSON)))
}

/// A body that could not be read: over [`MAX_BODY_BYTES`] (413), or broken off on the way.
fn unread(rejection: BytesRejection) -> Problem {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return Problem::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body-too-large",
            "The body is too large",
            format!(
                "the body is over {MAX_BODY_BYTES} bytes, the most the API reads; a payment's \
                 JSON takes a few hundred"
            ),
        );
    }
    Problem::new(
        rejection.status(),
        "body-unreadable",
        "The body could not be read",
        rejection.body_text(),
    )
}

/// The handler's reply, as HTTP.
fn respond(reply: Reply) -> Response {
    match reply {
        Reply::Created(stored) => stored_response(stored, false),
        Reply::Replayed(stored) => stored_response(stored, true),
        Reply::KeyReused => Problem::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "idempotency-key-reused",
            "This idempotency key was used for another request",
            "the key was first sent with a different request (method, path or body); a key \
             stands for one request, so send a new payment with a new key"
                .into(),
        )
        .into_response(),
        Reply::InFlight => Problem::new(
            StatusCode::CONFLICT,
            "idempotency-key-in-flight",
            "A request with this idempotency key is still being processed",
            "the first request with this key has not finished; send this one again later".into(),
        )
        .with_header(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS))
        .into_response(),
        Reply::Unavailable {
            retry_after_seconds,
        } => Problem::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "outcome-not-known-yet",
            "The payment could not be finished now",
            "its outcome is not known yet; send the same request again, with the same key, \
             after Retry-After seconds"
                .into(),
        )
        .with_header(header::RETRY_AFTER, HeaderValue::from(retry_after_seconds))
        .into_response(),
    }
}

/// A stored response, as it was stored, and with the headers a client needs from it. Those are
/// derived from the stored status and body, never stored beside them: a replay then carries the
/// same `Location` as the first response, whatever handler stored it and in whatever table.
fn stored_response(stored: Stored, replayed: bool) -> Response {
    let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let location = (status == StatusCode::CREATED)
        .then(|| location_of(&stored.body))
        .flatten();
    let mut response = (status, stored.body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON));
    if let Some(location) = location {
        headers.insert(header::LOCATION, location);
    }
    if replayed {
        headers.insert(REPLAYED, HeaderValue::from_static("true"));
    }
    response
}

/// The API on an ephemeral port of 127.0.0.1, for one connection, served by the future this
/// returns with the API's URL, in whatever task awaits it. A scripted request runs its API so:
/// dropping the task's future drops the request's handler right where it is, as a request
/// timeout or a client that hung up would. ([`Server`] spawns a task per connection, which
/// would outlive it.)
pub async fn one_connection<H: Handler>(
    pool: PgPool,
    handler: H,
    show: ShowPayment,
) -> std::io::Result<(String, impl Future<Output = ()> + Send)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    let service =
        hyper_util::service::TowerToHyperService::new(routes(pool, AnyHandler::new(handler), show));
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
    /// Serves `handler` on `pool`, showing lesson 11's payments.
    pub async fn start<H: Handler>(pool: PgPool, handler: H) -> std::io::Result<Server> {
        Server::start_on("127.0.0.1:0", pool, handler, from_payments).await
    }

    /// Serves `handler` on `pool`, at `addr` (`127.0.0.1:0` for any free port), showing the
    /// payments its 201s name with `show`.
    pub async fn start_on<H: Handler>(
        addr: &str,
        pool: PgPool,
        handler: H,
        show: ShowPayment,
    ) -> std::io::Result<Server> {
        Server::serve(addr, routes(pool, AnyHandler::new(handler), show)).await
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
mod tests;
