//! The lesson's scripted races and faults are data, `specs/*.spec`, and this is how every one of
//! them is played, a student's own included (`cargo workbook break 10`): a fresh database with
//! the events' order's units reserved, held, as the inventory did when the order was created;
//! the spec's sessions in its order (the kit's engine); then the rule (`judge.rs`) over what
//! the reservation, the stock and the outbox show and what each delivery said.

use kit::spec::{Run, Spec, SpecError};

use super::{observe, shown, with_reservations};
use crate::judge::verdict;
use crate::{Delivery, Handler, Outcome, ReservationEvent, Subject, Violation};

kit::lesson_specs!(
    feed: ReservationEvent => Outcome, read: ReservationEvent::from_json, shown: shown,
    check: your_orders,
    yours: "your spec's events were delivered in the order it gives (a scripted interleaving)",
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

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject`, then judges it: for each order, the
/// reservation settled once, by the first event to reach it, the units back on the shelf at most
/// once, the release announced once, each delivery's report true; then the endings every spec
/// shares (a delivery a fault ended must have said so, a neighbour must not have waited).
async fn play<H: Handler>(subject: Subject<H>, run: Run<'_, Delivery>) -> Result<(), Violation> {
    let during = run.during;
    let orders = your_orders(run.spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let reserved: Vec<&str> = orders.iter().map(String::as_str).collect();
    let (db, inventory) = with_reservations(&subject, during, &reserved).await?;
    let mut played = run.play(&db, &subject.handler, &FEED).await?;
    let mut observed = Vec::new();
    for order in &orders {
        let interleaving = Some(&mut played.interleaving);
        observed.push(observe(&inventory, order, during, interleaving).await?);
    }
    for (order, observed) in orders.iter().zip(&observed) {
        // This lesson's rule does not weigh a COMMIT whose answer was lost.
        let (outcomes, _) = played.take_results(|event| event.order_id() == order);
        verdict(
            observed,
            &outcomes,
            during,
            Some(played.interleaving.trace()),
        )?;
    }
    played.end(during)
}
// ANCHOR_END: play
