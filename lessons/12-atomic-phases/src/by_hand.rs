//! `cargo workbook deliver 12`: payment requests as JSON lines, lesson 11's format
//! (`{"client": "acme", "key": "k-1", "body": {"amount_cents": 1500, "currency": "eur"}}`), each
//! sent over HTTP to lesson 11's API in front of lesson 12's handler, which charges at the
//! provider (one that answers). Each line's report is the API's answer, the provider's charges
//! and ours, so a retry that charges twice shows at once.
//!
//! `cargo workbook serve 12`: the same API for `curl`, through lesson 11's `serve`.

use std::process::ExitCode;

use http_keys::server::Server;
use http_keys::{Call, PaymentRequest, send};
use sqlx::PgPool;

use crate::{Attempt, Behaviour, Clock, Handler, ProviderClient};

/// Lesson 12's lines, sent to the API in front of its handler.
pub struct RequestFeed<H> {
    handlers: H,
}

impl<H: Handler> kit::deliver::Feed for RequestFeed<H> {
    type Event = Call;

    fn parse(&self, line: &str) -> Result<Call, String> {
        http_keys::by_hand::parse(line)
    }

    async fn deliver(&self, pool: &PgPool, call: Call) -> Result<String, String> {
        let paying = paying(self.handlers.clone());
        let server = (Server::start_on("127.0.0.1:0", pool.clone(), paying, crate::show_charge)
            .await)
            .map_err(|e| format!("the payment API could not start: {e}"))?;
        let outcome = send(&reqwest::Client::new(), &server.url(), &call).await;
        server.stop().await;
        let answer = outcome
            .as_ref()
            .map_err(|_| http_keys::describe_answer(&outcome))?;
        let books = books_of(pool, &call.client)
            .await
            .unwrap_or_else(|e| format!("(the books could not be read back: {e})"));
        Ok(format!(
            "POST /payments ({}, key {}): {}. {books}",
            call.client,
            call.key,
            answer.shown()
        ))
    }
}

/// Lesson 11's handler shape in front of `handlers`' `pay`: each accepted request becomes an
/// attempt stamped by the system's clock, with a provider that answers.
fn paying<H: Handler>(handlers: H) -> impl http_keys::Handler {
    let clock = Clock::default();
    move |pool: PgPool, accepted: PaymentRequest| {
        let attempt = Attempt {
            provider: ProviderClient::new(&pool, Behaviour::Answer),
            request: accepted,
            now: clock.now(),
        };
        kit::Handler::call(handlers.pay(), pool, attempt)
    }
}

/// The client's charges at the provider and in our books, in a line.
async fn books_of(pool: &PgPool, client: &str) -> Result<String, String> {
    let (provider, ours): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM provider.charges WHERE customer = $1),
                (SELECT count(*) FROM charges WHERE client_id = $1)",
    )
    .bind(client)
    .fetch_one(pool)
    .await
    .map_err(|e| kit::describe_sqlx(&e))?;
    Ok(format!(
        "{client}: {provider} charge(s) at the provider, {ours} in our books"
    ))
}

/// The `deliver` binary of lesson 12's exercise and solution.
pub fn main<H: Handler>(subject: kit::Subject<H>) -> ExitCode {
    kit::deliver::main(
        RequestFeed {
            handlers: subject.handler,
        },
        subject.schema,
    )
}

/// The `serve` binary of lesson 12's exercise and solution: lesson 11's API on port 8012, in
/// front of the crate's `create_payment`, charging at a provider that answers.
pub fn serve<H: Handler>(subject: kit::Subject<H>) -> ExitCode {
    let kit::Subject { handler, schema } = subject;
    http_keys::serve::main_for(
        12,
        kit::Subject {
            handler: paying(handler),
            schema,
        },
        crate::show_charge,
    )
}
