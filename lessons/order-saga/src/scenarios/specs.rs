//! The saga lessons' scripted scenarios are data, `specs/*.spec`: how their deliveries reach
//! the handler, and which of them, a student's own included (`cargo workbook break 05`), the
//! saga's rule can judge. `lesson.rs` plays and judges them, and each lesson picks the
//! permutations it plays (`picks.rs`): lesson 02's solution has no guard 2, so it plays no
//! contradicting events.

use kit::spec::{Feed, Spec, SpecError};

use super::shown;
use crate::{Outcome, PaymentEvent};

/// How the specs reach the handler (`deliver {JSON}`, read as `cargo workbook deliver 05` reads
/// a payment result), and how a trace shows each.
pub const FEED: Feed<PaymentEvent, Result<Outcome, sqlx::Error>> = Feed::new(
    |json| PaymentEvent::from_json(json).map_err(|e| e.to_string()),
    shown,
);

/// The events a spec delivers, in its order, grouped by order in the order each first appears:
/// the rule judges each order apart, resolved once by whichever of its events reached it first.
pub fn your_orders(spec: &Spec) -> Result<Vec<Vec<PaymentEvent>>, SpecError> {
    let mut orders: Vec<Vec<PaymentEvent>> = Vec::new();
    for event in spec.events("the order saga", FEED.read)? {
        let same_order = |o: &&mut Vec<PaymentEvent>| o[0].order_id() == event.order_id();
        match orders.iter_mut().find(same_order) {
            Some(order) => order.push(event),
            None => orders.push(vec![event]),
        }
    }
    Ok(orders)
}
