//! The lesson's scripted races and faults are data, `specs/*.spec`, and this is how every one of
//! them is played, a student's own included (`cargo workbook break 10`): on a fresh database
//! with the events' order's units reserved, held, as the inventory did when the order was
//! created (`lesson.rs`); the spec's sessions in its order (the kit's engine), or its workers
//! released together round after round (the kit's barrier); then the rule (`judge.rs`) over
//! what the reservation, the stock and the outbox show and what each delivery said.

use kit::TestDatabase;
use kit::spec::{Feed, Run, Spec, SpecError};

use super::{observe, shown};
use crate::inventory::Inventory;
use crate::judge::verdict;
use crate::{Delivery, Handler, Outcome, ReservationEvent, Subject, Violation};

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

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject` on `db`, then judges it: for each order,
/// the reservation settled once, by the first event to reach it, the units back on the shelf at
/// most once, the release announced once, each delivery's report true; then the endings every
/// spec shares (a delivery a fault ended must have said so, a neighbour must not have waited).
pub(crate) async fn play<H: Handler>(
    subject: Subject<H>,
    db: &TestDatabase,
    inventory: &mut Inventory,
    run: Run<'_, Delivery>,
) -> Result<(), Violation> {
    let during = run.during;
    let orders = your_orders(run.spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let mut played = run.play(db, &subject.handler, &FEED).await?;
    let mut observed = Vec::new();
    for order in &orders {
        let interleaving = Some(&mut played.interleaving);
        observed.push(observe(inventory, order, during, interleaving).await?);
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

/// One round of `specs/released.spec`: what each worker released together delivered and
/// returned. Each order's reservation, reserved this round, must have been settled once, by
/// one of them. A barrier round has no script, so its message has no trace.
pub(crate) async fn judge_released(
    inventory: &Inventory,
    delivered: Vec<(ReservationEvent, Result<Outcome, sqlx::Error>)>,
    during: Delivery,
) -> Result<(), Violation> {
    for (event, outcomes) in kit::contract::grouped(delivered, |e| e.order_id().to_string()) {
        let observed = observe(inventory, event.order_id(), during, None).await?;
        verdict(&observed, &outcomes, during, None)?;
    }
    Ok(())
}
