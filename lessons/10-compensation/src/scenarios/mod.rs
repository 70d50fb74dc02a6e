//! Lesson 10's tests, each a story from chapter 10. Every scenario reserves an order's units on
//! a fresh database as the inventory did when the order was created, delivers the events that
//! settle the reservation, and judges what the reservation, the stock and the outbox show. The
//! races, faults, barrier and redeliveries are specs (`specs/`, played by `lesson.rs`); what
//! data cannot say yet is Rust, here.

mod overtaken;
mod replayed;
mod specs;

pub use overtaken::{cancellation_races_the_reservation, cancelled_before_the_reservation};
pub use replayed::replayed_after_a_restore;
pub(crate) use specs::FEED;
pub use specs::your_orders;

use kit::TestDatabase;

use crate::inventory::{Inventory, Observed};
use crate::{Delivery, Handler, Kind, ReservationEvent, Subject, Violation};

/// How many units every scenario's order reserved.
pub(crate) const QUANTITY: i32 = 2;

/// A fresh database with the subject's schema, the test's own session on it, and the units of
/// each of `orders` reserved, as the inventory did when each order was created.
async fn with_reservations<H: Handler>(
    subject: &Subject<H>,
    during: Delivery,
    orders: &[&str],
) -> Result<(TestDatabase, Inventory), Violation> {
    let (db, inventory) = kit::prepare(&subject.schema, during, Inventory::open).await?;
    for order_id in orders {
        (inventory.reserve(order_id, QUANTITY).await).map_err(Violation::setup(during))?;
    }
    Ok((db, inventory))
}

/// Every event a scenario delivers arrives as its publisher writes it, as JSON, and goes
/// through the parser a real consumer would use at its edge. Its id names the event, not the
/// delivery: a redelivery carries the same one.
fn event(kind: Kind, order_id: &str) -> ReservationEvent {
    let (name, payload) = match kind {
        Kind::PaymentFailed => (
            "failed",
            serde_json::json!({ "order_id": order_id, "reason": "card declined" }),
        ),
        Kind::OrderCancelled => (
            "cancelled",
            serde_json::json!({ "order_id": order_id, "reason": "customer request" }),
        ),
        Kind::PaymentSucceeded => ("paid", serde_json::json!({ "order_id": order_id })),
    };
    let wire = serde_json::json!({
        "id": format!("evt-{name}-{order_id}"),
        "type": kind.as_str(),
        "aggregate_id": order_id,
        "payload": payload,
        "occurred_at": "2026-07-14T09:15:40Z",
    });
    ReservationEvent::from_json(&wire.to_string()).expect("the scenarios' events are valid")
}

fn failed(order_id: &str) -> ReservationEvent {
    event(Kind::PaymentFailed, order_id)
}

fn cancelled(order_id: &str) -> ReservationEvent {
    event(Kind::OrderCancelled, order_id)
}

/// How a trace shows a delivery.
fn shown(event: &ReservationEvent) -> String {
    format!(
        "settle_reservation({} {})",
        event.kind().as_str(),
        event.id()
    )
}

/// What the deliveries left for `order_id`, noted in the trace when the scenario has one.
pub(crate) async fn observe(
    inventory: &Inventory,
    order_id: &str,
    during: Delivery,
    interleaving: Option<&mut kit::Interleaving>,
) -> Result<Observed, Violation> {
    let observed = (inventory.observe(order_id, &[]).await).map_err(Violation::setup(during))?;
    if let Some(interleaving) = interleaving {
        interleaving.note(observed.summary());
    }
    Ok(observed)
}
