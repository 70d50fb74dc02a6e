//! The lesson's scripted races and faults are data, `specs/*.spec`: how their deliveries reach
//! the handler, and which of them, a student's own included (`cargo workbook break 10`), lesson
//! 10's rule can judge. `lesson.rs` plays and judges them.

use kit::spec::{Feed, Spec, SpecError};

use super::shown;
use crate::{Outcome, ReservationEvent};

/// How the specs reach the handler (`deliver {JSON}`, read as `cargo workbook deliver 10` reads
/// an event), and how a trace shows each.
pub const FEED: Feed<ReservationEvent, Result<Outcome, sqlx::Error>> = Feed::new(
    |json| ReservationEvent::from_json(json).map_err(|e| e.to_string()),
    shown,
);

/// The orders a spec's deliveries are for, in the order they first appear: the rule judges
/// each order's reservation, settled once, apart from the others'.
pub fn your_orders(spec: &Spec) -> Result<Vec<String>, SpecError> {
    let mut orders: Vec<String> = Vec::new();
    for event in spec.events("lesson 10", FEED.read)? {
        if !orders.iter().any(|order| order == event.order_id()) {
            orders.push(event.order_id().to_string());
        }
    }
    Ok(orders)
}
