//! Lesson 11's tests, each a story from chapter 11. Every scenario takes the subject (a handler
//! and its schema), builds a fresh database, starts the API in front of the handler, sends its
//! requests with a real HTTP client, and judges what came back and what payments the client has.
//! The scripted ones are specs (`specs/`, played by `lesson.rs`).

mod expired;
mod neighbours;
mod sequential;
mod specs;

pub use expired::forgotten_after_its_window;
pub use neighbours::another_client_sends_the_same_key;
pub use sequential::{key_sent_again_with_another_request, retried_after_a_refund};
pub use specs::{FEED, your_requests};
pub(crate) use specs::{cut_at_commit, failed, judge_each};

use kit::{Interleaving, TestDatabase};
use sqlx::PgPool;

use crate::judge::{Sent, verdict};
use crate::observe::{Payments, summary};
use crate::{Api, Call, Delivery, Subject, Violation};

/// The client of every scenario but the neighbours', and its key for one payment.
const CLIENT: &str = "acme";
const KEY: &str = "3f1c9a52-pay-ord-1001";
/// The payment the key stands for, in cents; a different request under it asks for another.
const AMOUNT: i64 = 1500;
const OTHER_AMOUNT: i64 = 2500;

/// A fresh database with the subject's schema, and the test's own session on it.
async fn prepare<H: Api>(
    subject: &Subject<H>,
    during: Delivery,
) -> Result<(TestDatabase, Payments), Violation> {
    kit::prepare(&subject.schema, during, Payments::open).await
}

/// The key's payment, as the client first sends it.
fn payment() -> Call {
    Call::payment(CLIENT, KEY, AMOUNT)
}

/// How a trace shows a request: `POST /payments acme 3f1c…-pay-ord-1001 1500`.
fn shown(call: &Call) -> String {
    let body: serde_json::Value = serde_json::from_str(&call.body).unwrap_or_default();
    // The currency when it is not the euro every scenario pays in, and the description when
    // there is one: what tells two requests under one key apart, when the amount does not.
    let currency = (body["currency"].as_str())
        .filter(|c| *c != "eur")
        .map(|c| format!(" in {c}"))
        .unwrap_or_default();
    let description = (body["description"].as_str())
        .map(|d| format!(", \"{d}\""))
        .unwrap_or_default();
    format!(
        "POST /payments ({}, key {}, {} cents{currency}{description})",
        call.client, call.key, body["amount_cents"]
    )
}

/// Sends `calls` one after the other, each once the last was answered, each to an API of its
/// own on `pool` (as a client's retries reach whichever instance the load balancer picks).
pub(crate) async fn send_each<H: Api>(
    subject: &Subject<H>,
    pool: &PgPool,
    calls: &[Call],
) -> Vec<Sent> {
    let mut sent = Vec::new();
    for call in calls {
        let outcome = kit::Handler::call(&subject.handler, pool.clone(), call.clone()).await;
        sent.push(Sent::new(call, outcome));
    }
    sent
}

/// Reads `client`'s payments back (noted in the trace, when the scenario has one) and judges
/// the requests it sent under its key.
pub(crate) async fn judge(
    payments: &Payments,
    client: &str,
    sent: &[Sent],
    during: Delivery,
    overlapped: bool,
    interleaving: Option<&mut Interleaving>,
) -> Result<(), Violation> {
    let rows = (payments.of(client).await).map_err(Violation::setup(during))?;
    let ids = (payments.ids().await).map_err(Violation::setup(during))?;
    let trace = interleaving.map(|interleaving| {
        interleaving.note(summary(client, &rows));
        interleaving.trace().clone()
    });
    verdict(client, &rows, sent, overlapped, &ids)
        .map_err(Violation::caught(during, trace.as_ref()))
}

/// Each request's answer with the request, in the order `calls` lists the sessions that sent
/// them (a session with no answer, abandoned or failed, is left out).
pub(crate) fn sent_by(
    outcomes: kit::Outcomes<Result<crate::Answer, crate::ServerError>>,
    calls: &[&(String, Call)],
) -> Vec<Sent> {
    (calls.iter())
        .filter_map(|(worker, call)| {
            (outcomes.iter())
                .find(|(name, _)| name == worker)
                .map(|(_, outcome)| Sent::new(call, outcome.clone()))
        })
        .collect()
}
