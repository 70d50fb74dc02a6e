//! Lesson 06's tests, each a story from chapter 6: its specs (`specs.rs` reads them, `lesson.rs` plays and judges them),
//! and the one scenario data cannot say yet (`replayed.rs`). Each judges what the card network,
//! the step's record and its outbox show.

mod replayed;
mod specs;

pub use replayed::replayed_after_a_restore;
pub(crate) use specs::FEED;
pub use specs::your_orders;

use kit::TestDatabase;

use crate::step::{Observed, PaymentStep};
use crate::{Delivery, Handler, OrderCreated, Subject, Violation};

/// What the scenario in Rust's order costs, as the specs' orders do.
const AMOUNT_CENTS: i64 = 2598;

/// A fresh database with the subject's schema, and the test's own session on it.
async fn prepare<H: Handler>(
    subject: &Subject<H>,
    during: Delivery,
) -> Result<(TestDatabase, PaymentStep), Violation> {
    kit::prepare(&subject.schema, during, PaymentStep::open).await
}

/// Every order.created a scenario delivers arrives as the order service publishes it, as JSON,
/// and goes through the parser a real consumer would use at its edge.
fn order_created(order_id: &str, card: &str) -> OrderCreated {
    let wire = serde_json::json!({
        "id": format!("evt-{order_id}"),
        "type": "order.created",
        "aggregate_id": order_id,
        "payload": { "order_id": order_id, "amount_cents": AMOUNT_CENTS, "card": card },
        "occurred_at": "2026-07-14T09:15:00Z",
    });
    OrderCreated::from_json(&wire.to_string()).expect("the scenarios' events are valid")
}

/// How a trace shows a delivery.
fn shown(event: &OrderCreated) -> String {
    format!("take_payment(order.created {})", event.order_id())
}

/// What the deliveries left for `order_id` (with the ids `published` before a restore), noted
/// in the trace when the scenario has one.
pub(crate) async fn observe(
    step: &PaymentStep,
    order_id: &str,
    published: &[String],
    during: Delivery,
    interleaving: Option<&mut kit::Interleaving>,
) -> Result<Observed, Violation> {
    let observed = step
        .observe(order_id, published)
        .await
        .map_err(Violation::setup(during))?;
    if let Some(interleaving) = interleaving {
        interleaving.note(observed.summary());
    }
    Ok(observed)
}
