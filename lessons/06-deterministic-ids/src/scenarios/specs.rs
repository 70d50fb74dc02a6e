//! The lesson's scripted scenarios are data, `specs/*.spec`, and this is how every one of them
//! is played, a student's own included (`cargo workbook break 06`): a fresh database, the
//! spec's sessions in its order (the kit's engine), then the rule (`judge.rs`) over what the
//! card network, the step's record, its outbox and each delivery said.

use kit::spec::{Run, Spec, SpecError};

use super::{observe, prepare, shown};
use crate::judge::verdict;
use crate::{Delivery, Handler, OrderCreated, Outcome, Subject, Violation};

kit::lesson_specs!(
    feed: OrderCreated => Outcome, read: OrderCreated::from_json, shown: shown,
    check: your_orders,
    yours: "order.created was delivered in the order your spec gives (a scripted interleaving)",
);

/// The order.created events a spec delivers, one per order: the lesson's rule is about one
/// order delivered more than once, so every delivery for an order must carry the same one. A
/// second order is a neighbour, judged by the same rule.
pub fn your_orders(spec: &Spec) -> Result<Vec<OrderCreated>, SpecError> {
    let order_id = |order: &OrderCreated| order.order_id().to_string();
    let named = |order: &OrderCreated| format!("{} for {}", order.id(), order.order_id());
    spec.one_event_each("lesson 06", FEED.read, order_id, named, "order")
}

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject`, then judges it: for each order, the rule
/// over what the network, the record and the outbox hold for it, and the deliveries for it no
/// fault ended; then the endings every spec shares (a delivery a fault ended must have reported
/// its failure, a neighbour must not have waited).
async fn play<H: Handler>(subject: Subject<H>, run: Run<'_, Delivery>) -> Result<(), Violation> {
    let during = run.during;
    let orders = your_orders(run.spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let (db, step) = prepare(&subject, during).await?;
    let mut played = run.play(&db, &subject.handler, &FEED).await?;
    let mut observed = Vec::new();
    for order in &orders {
        let interleaving = Some(&mut played.interleaving);
        observed.push(observe(&step, order.order_id(), &[], during, interleaving).await?);
    }
    for (order, observed) in orders.iter().zip(&observed) {
        let (outcomes, lost) = played.take_results(|event| event.order_id() == order.order_id());
        let trace = played.interleaving.trace();
        verdict(observed, &outcomes, lost, during, Some(trace))?;
    }
    played.end(during)
}
// ANCHOR_END: play
