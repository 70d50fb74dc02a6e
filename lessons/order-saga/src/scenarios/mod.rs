//! The saga lessons' tests, each one a story from chapters 2 to 5. Every scenario takes the
//! subject (a handler and its schema), builds a fresh database, places an order, delivers
//! payment results, and judges what the order, the outbox and processed_events show. The
//! scripted races and faults are specs (`specs/`, read by `specs.rs` and played by
//! `lesson.rs`); what data cannot say yet is Rust, here.

mod barrier;
mod neighbours;
mod sequential;
mod specs;

pub use barrier::{BARRIER_ROUNDS, Mix, barrier, barrier_rounds};
pub use neighbours::instalments_race_for_one_order;
pub use sequential::{
    event_for_an_unknown_order, late_failure_after_confirmation, redelivered_after_commit,
    redelivered_instalment,
};
pub use specs::{FEED, your_orders};

use kit::{TestDatabase, Trace};

use crate::ViolationKind;
use crate::orders::Orders;
use crate::{Delivery, Handler, Outcome, PaymentEvent, Subject, Violation};

/// The holder's lock on the order's row: a delivery stops at its first touch of the order.
const LOCK_ORDER_ROW: &str = "BEGIN; SELECT 1 FROM orders WHERE id = 'ord-1' FOR UPDATE";

/// What every scenario's order costs, unless it is paid in instalments.
const AMOUNT_CENTS: i64 = 2598;

/// A fresh database with the subject's schema, and the test's own session on it.
async fn prepare<H: Handler>(
    subject: &Subject<H>,
    during: Delivery,
) -> Result<(TestDatabase, Orders), Violation> {
    kit::prepare(&subject.schema, during, Orders::open).await
}

/// The same, with the pending order `ord-1` placed for `amount_cents`: where most scenarios
/// start.
async fn with_order<H: Handler>(
    subject: &Subject<H>,
    during: Delivery,
    amount_cents: i64,
) -> Result<(TestDatabase, Orders), Violation> {
    let (db, orders) = prepare(subject, during).await?;
    orders
        .place("ord-1", amount_cents)
        .await
        .map_err(Violation::setup(during))?;
    Ok((db, orders))
}

fn succeeded(id: &str, order_id: &str) -> PaymentEvent {
    payment(id, order_id, AMOUNT_CENTS, None)
}

fn failed(id: &str, order_id: &str) -> PaymentEvent {
    payment(id, order_id, AMOUNT_CENTS, Some("card declined"))
}

/// Every event a scenario delivers arrives as the payment service publishes it, as JSON, and
/// goes through the parser a real consumer would use at its edge.
fn payment(id: &str, order_id: &str, amount_cents: i64, declined: Option<&str>) -> PaymentEvent {
    let (kind, payload) = match declined {
        None => (
            "payment.succeeded",
            serde_json::json!({ "order_id": order_id, "amount_cents": amount_cents }),
        ),
        Some(reason) => (
            "payment.failed",
            serde_json::json!({ "order_id": order_id, "amount_cents": amount_cents, "reason": reason }),
        ),
    };
    let wire = serde_json::json!({
        "id": id,
        "type": kind,
        "aggregate_id": order_id,
        "payload": payload,
        "occurred_at": "2026-07-14T09:15:40Z",
    });
    PaymentEvent::from_json(&wire.to_string()).expect("the scenarios' events are valid")
}

/// How a trace shows a delivery of `event`.
fn shown(event: &PaymentEvent) -> String {
    format!("apply_payment_result({} {})", event.kind(), event.id())
}

/// How a trace shows what a delivery returned: the outcome, or the error by its SQLSTATE.
fn describe(outcome: &Result<Outcome, sqlx::Error>) -> String {
    kit::describe_outcome(outcome)
}

/// Right result, wrong reason: a delivery may only give up on its event once the delivery it
/// raced has ended its transaction, since until then nobody knows what that one will commit.
pub(crate) fn gave_up_without_waiting(
    waited: bool,
    outcome: &Result<Outcome, sqlx::Error>,
    during: Delivery,
    trace: &Trace,
) -> Result<(), Violation> {
    match outcome {
        Ok(outcome) if !waited && *outcome != Outcome::Applied => Err(Violation {
            kind: ViolationKind::DecidedWithoutWaiting { outcome: *outcome },
            during,
            trace: Some(trace.clone()),
        }),
        _ => Ok(()),
    }
}
