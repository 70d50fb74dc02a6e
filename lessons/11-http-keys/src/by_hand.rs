//! `cargo workbook deliver 11`: payment requests as JSON lines, each sent over HTTP to the
//! payment API in front of lesson 11's handler, against the development database.
//!
//! A line is one request: who sends it, under which key, and the body, exactly as it goes out:
//! `{"client": "acme", "key": "k-1", "body": {"amount_cents": 1500, "currency": "eur"}}`. The
//! key and the body are sent as they are, so that the API's own refusals (a key too long, a body
//! that is not a payment) can be tried too. Each line's report is the API's answer and the
//! client's payments, so a retry that pays twice shows at once.

use std::process::ExitCode;

use serde::Deserialize;
use sqlx::PgPool;

use crate::http::{describe, send};
use crate::server::Server;
use crate::{Call, Handler, Subject};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    client: String,
    key: String,
    body: serde_json::Value,
}

const EXAMPLE: &str =
    r#"{"client": "acme", "key": "k-1", "body": {"amount_cents": 1500, "currency": "eur"}}"#;

/// Reads one line, or says what is wrong with it.
pub fn parse(line: &str) -> Result<Call, String> {
    let line: Line = serde_json::from_str(line)
        .map_err(|e| format!("it is not a request ({e}); expected an object like {EXAMPLE}"))?;
    if line.client.trim().is_empty() {
        return Err("the request's client is empty; every request is sent by a client".into());
    }
    if !line.body.is_object() {
        return Err(format!(
            "the request's body is {}, not an object; expected an object like {EXAMPLE}",
            line.body
        ));
    }
    Ok(Call {
        client: line.client,
        key: line.key,
        body: line.body.to_string(),
    })
}

/// Lesson 11's lines, sent to the API in front of its handler.
pub struct RequestFeed<H> {
    handler: H,
}

impl<H: Handler> kit::deliver::Feed for RequestFeed<H> {
    type Event = Call;

    fn parse(&self, line: &str) -> Result<Call, String> {
        parse(line)
    }

    async fn deliver(&self, pool: &PgPool, call: Call) -> Result<String, String> {
        let server = (Server::start(pool.clone(), self.handler.clone()).await)
            .map_err(|e| format!("the payment API could not start: {e}"))?;
        let outcome = send(&reqwest::Client::new(), &server.url(), &call).await;
        server.stop().await;
        let answer = outcome.as_ref().map_err(|_| describe(&outcome))?;
        let detail = match answer.status {
            201 => String::new(),
            _ => format!(" {}", answer.body),
        };
        let after = payments_of(pool, &call.client)
            .await
            .unwrap_or_else(|e| format!("(the payments could not be read back: {e})"));
        Ok(format!(
            "POST /payments ({}, key {}): {}{detail}. {after}",
            call.client,
            call.key,
            answer.shown()
        ))
    }
}

/// The client's payments, read in a line.
async fn payments_of(pool: &PgPool, client: &str) -> Result<String, String> {
    let rows: Vec<(i64, i64, String)> = sqlx::query_as(
        "SELECT id, amount_cents, status FROM payments WHERE client_id = $1 ORDER BY id",
    )
    .bind(client)
    .fetch_all(pool)
    .await
    .map_err(|e| kit::describe_sqlx(&e))?;
    let each: Vec<String> = (rows.iter())
        .map(|(id, amount, status)| format!("pay_{id} ({amount}, {status})"))
        .collect();
    Ok(match each.len() {
        0 => format!("{client} has no payment"),
        n => format!("{client} has {n} payment(s): {}", each.join(", ")),
    })
}

/// The `deliver` binary of lesson 11's exercise and solution.
pub fn main<H: Handler>(subject: Subject<H>) -> ExitCode {
    kit::deliver::main(
        RequestFeed {
            handler: subject.handler,
        },
        subject.schema,
    )
}

#[cfg(test)]
mod tests {
    use kit::deliver::Feed;

    use super::*;
    use crate::{PaymentRequest, Reply, Stored};

    /// A handler that pays nothing and answers 201 with a fixed body: the feed, not a handler,
    /// is under test here.
    fn feed() -> RequestFeed<impl Handler> {
        RequestFeed {
            handler: |_: PgPool, _: PaymentRequest| async {
                Ok(Reply::Created(Stored {
                    status: 201,
                    body: r#"{"id":"pay_0"}"#.into(),
                }))
            },
        }
    }

    #[test]
    fn a_line_is_sent_as_written() {
        let call = feed().parse(EXAMPLE).unwrap();
        assert_eq!(
            call,
            Call {
                client: "acme".into(),
                key: "k-1".into(),
                body: r#"{"amount_cents":1500,"currency":"eur"}"#.into(),
            }
        );
    }

    /// Every way a line can be wrong gets a sentence that names the problem.
    #[test]
    fn each_bad_line_is_refused_with_its_problem() {
        let cases = [
            ("{\"client\": \"acme\",", "not a request"),
            ("[1, 2]", "not a request"),
            (r#"{"client": "acme", "body": {}}"#, "missing field `key`"),
            (r#"{"key": "k", "body": {}}"#, "missing field `client`"),
            (
                r#"{"client": " ", "key": "k", "body": {}}"#,
                "client is empty",
            ),
            (r#"{"client": "acme", "key": "k", "body": 5}"#, "body is 5"),
            (
                r#"{"client": "acme", "key": "k", "body": {}, "amount": 1}"#,
                "unknown field `amount`",
            ),
        ];
        kit::deliver::assert_each_refused(cases, |line| feed().parse(line));
    }

    /// A line goes through the real API: its refusals come back as the API words them, and
    /// each report reads the client's payments back.
    #[tokio::test]
    async fn each_line_is_answered_by_the_api() {
        let schema = kit::Schema::from_dirs([crate::__private::BASE_MIGRATIONS]);
        let db = kit::TestDatabase::create(&schema).await.unwrap();
        let pool = db.pool(1).await.unwrap();
        let long_key = EXAMPLE.replace("k-1", &"k".repeat(256));
        let input = format!("{EXAMPLE}\n{long_key}\n");
        let mut out = Vec::new();
        let delivered = kit::deliver::run(&feed(), &pool, input.as_bytes(), &mut out).await;
        let said = String::from_utf8(out).unwrap();
        assert_eq!(delivered.ok(), Some(2), "{said}");
        assert!(
            said.contains("(acme, key k-1): 201 pay_0. acme has no payment"),
            "{said}"
        );
        assert!(
            said.contains("400 /problems/idempotency-key-malformed"),
            "{said}"
        );
        assert!(said.contains("256 characters long"), "{said}");
    }
}
