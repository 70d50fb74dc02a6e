//! The lesson's scripted scenarios are data, `specs/*.spec`: how their deliveries reach the
//! handler, and which of them, a student's own included (`cargo workbook break 06`), lesson
//! 06's rule can judge. `lesson.rs` plays and judges them.

use kit::spec::{Feed, Spec, SpecError};

use super::shown;
use crate::{OrderCreated, Outcome};

/// How the specs reach the handler (`deliver {JSON}`, read as `cargo workbook deliver 06` reads
/// an order.created), and how a trace shows each.
pub const FEED: Feed<OrderCreated, Result<Outcome, sqlx::Error>> = Feed::new(
    |json| OrderCreated::from_json(json).map_err(|e| e.to_string()),
    shown,
);

/// The order.created events a spec delivers, one per order: the lesson's rule is about one
/// order delivered more than once, so every delivery for an order must carry the same one. A
/// second order is a neighbour, judged by the same rule.
pub fn your_orders(spec: &Spec) -> Result<Vec<OrderCreated>, SpecError> {
    let order_id = |order: &OrderCreated| order.order_id().to_string();
    let named = |order: &OrderCreated| format!("{} for {}", order.id(), order.order_id());
    spec.one_event_each("lesson 06", FEED.read, order_id, named, "order")
}
