//! The tests' side of the wire: a request as a client sends it ([`Call`]), and the API's answer
//! as the client reads it ([`Answer`]). [`Http`] makes the handler under test a kit handler of
//! calls: each call starts the API on the connection the kit gives it and sends the request with
//! reqwest, so a scripted interleaving sees every request's transaction as one session, and a
//! request goes through everything a real one does (routing, headers, the body, the status).

use std::future::Future;

use sqlx::PgPool;

use crate::Handler;
use crate::server::{REPLAYED, one_connection};

/// One `POST /payments`, as a client sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub client: String,
    /// The `Idempotency-Key` header's value, exactly as sent.
    pub key: String,
    /// The body, exactly as sent.
    pub body: String,
}

impl Call {
    /// `client` asks for `amount_cents` in euros, under `key`.
    pub fn payment(client: &str, key: &str, amount_cents: i64) -> Call {
        Call {
            client: client.into(),
            key: key.into(),
            body: format!(r#"{{"amount_cents": {amount_cents}, "currency": "eur"}}"#),
        }
    }
}

/// What the API answered, as the client read it: everything a retry must get back.
#[derive(Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    /// `Idempotent-Replayed: true`: the response stored for the key's first request.
    pub replayed: bool,
    pub retry_after: Option<String>,
    pub content_type: Option<String>,
    pub body: String,
}

/// A message shows an answer as a trace does: `201 pay_1 (replayed)`.
impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown())
    }
}

/// A request the API could not answer: a 5xx (the handler failed), or no answer at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    pub status: Option<u16>,
    /// The problem's `sqlstate` member: what the database refused, if it did.
    pub sqlstate: Option<String>,
    pub detail: String,
}

impl ServerError {
    /// How a failure's message names it: `500, SQLSTATE 57014: …`, or `no answer: …`.
    pub fn told(&self) -> String {
        let status = self.status.map_or("no answer".into(), |s| s.to_string());
        let code = (self.sqlstate.as_deref()).map_or(String::new(), |c| format!(", SQLSTATE {c}"));
        format!("{status}{code}: {}", self.detail)
    }
}

/// The handler under test, behind the API, as a kit handler of [`Call`]s.
#[derive(Clone)]
pub struct Http<H>(pub H);

impl<H: Handler> kit::Handler<Call> for Http<H> {
    type Output = Result<Answer, ServerError>;

    fn call(
        &self,
        pool: PgPool,
        call: Call,
    ) -> impl Future<Output = Self::Output> + Send + 'static + use<H> {
        let handler = self.0.clone();
        async move { answered(pool, handler, crate::from_payments, &call).await }
    }
}

/// `call`, sent to an API served for this one request in front of `handler`, on `pool`, showing
/// payments with `show`. The API
/// and its client are in the caller's future: a script that drops it drops the request's
/// handler where it is. Once the client has its answer, the API is done. Lesson 12 serves its
/// scripted requests the same way.
pub async fn answered<H: Handler>(
    pool: PgPool,
    handler: H,
    show: crate::ShowPayment,
    call: &Call,
) -> Result<Answer, ServerError> {
    let (url, serving) = (one_connection(pool, handler, show).await).map_err(|e| ServerError {
        status: None,
        sqlstate: None,
        detail: format!("the API could not start: {e}"),
    })?;
    let client = reqwest::Client::new();
    tokio::select! {
        answer = send(&client, &url, call) => answer,
        () = serving => Err(ServerError {
            status: None,
            sqlstate: None,
            detail: "the API closed the connection without an answer".into(),
        }),
    }
}

/// Sends `call` to the API at `url` with `client`, as a client would. One client keeps its
/// connections open for the next request to the same API: a barrier's rounds reuse them rather
/// than open (and leave in TIME_WAIT) a connection per request.
pub async fn send(client: &reqwest::Client, url: &str, call: &Call) -> Result<Answer, ServerError> {
    let unanswered = |e: reqwest::Error| ServerError {
        status: None,
        sqlstate: None,
        detail: format!("no answer: {e}"),
    };
    let response = client
        .post(format!("{url}/payments"))
        .header("authorization", format!("Bearer {}", call.client))
        .header("idempotency-key", &call.key)
        .header("content-type", "application/json")
        .body(call.body.clone())
        .send()
        .await
        .map_err(unanswered)?;
    let status = response.status().as_u16();
    let header = |name: &str| {
        (response.headers().get(name))
            .and_then(|value| value.to_str().ok())
            .map(str::to_string)
    };
    let replayed = header(REPLAYED).as_deref() == Some("true");
    let retry_after = header("retry-after");
    let content_type = header("content-type");
    let body = response.text().await.map_err(unanswered)?;
    // A 503 with Retry-After is an answer (come back later), not a failure of the API.
    if status >= 500 && !(status == 503 && retry_after.is_some()) {
        let problem: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        return Err(ServerError {
            status: Some(status),
            sqlstate: problem["sqlstate"].as_str().map(str::to_string),
            detail: problem["detail"].as_str().unwrap_or(&body).to_string(),
        });
    }
    Ok(Answer {
        status,
        replayed,
        retry_after,
        content_type,
        body,
    })
}

impl Answer {
    /// The payment's id in a 201's body (`pay_17`), if the body has one.
    pub fn payment_id(&self) -> Option<String> {
        let body: serde_json::Value = serde_json::from_str(&self.body).ok()?;
        body["id"].as_str().map(str::to_string)
    }

    /// How a trace shows the answer: `201 pay_1`, `201 pay_1 (replayed)`, `409 Retry-After: 1`.
    pub fn shown(&self) -> String {
        let mut shown = self.status.to_string();
        if let Some(id) = self.payment_id() {
            shown = format!("{shown} {id}");
        } else if let Ok(problem) = serde_json::from_str::<serde_json::Value>(&self.body)
            && let Some(kind) = problem["type"].as_str()
        {
            shown = format!("{shown} {kind}");
        }
        if self.replayed {
            shown.push_str(" (replayed)");
        }
        if let Some(after) = &self.retry_after {
            shown = format!("{shown}, Retry-After: {after}");
        }
        shown
    }
}

/// How a trace shows what a call returned: as [`Answer::shown`], without the payment's id. Two
/// requests that both pay, released by one commit, take their ids in either order, and a trace
/// is written down in the book; the payments themselves, read back, are noted in id order.
pub fn describe(outcome: &Result<Answer, ServerError>) -> String {
    match outcome {
        Ok(answer) => match answer.payment_id() {
            Some(id) => answer.shown().replacen(&format!(" {id}"), "", 1),
            None => answer.shown(),
        },
        Err(error) => match (error.status, &error.sqlstate) {
            (Some(status), Some(code)) => format!("{status} (SQLSTATE {code})"),
            (Some(status), None) => status.to_string(),
            (None, _) => error.detail.clone(),
        },
    }
}
