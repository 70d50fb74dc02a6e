//! The lesson's scripted scenarios are data, `specs/*.spec`, and this is how every one of them
//! is played, a student's own included (`cargo workbook break 06`): on a fresh database, the
//! spec's sessions in its order (the kit's engine), or its workers released together round
//! after round (the kit's barrier), then the rule (`judge.rs`) over what the card network, the
//! step's record, its outbox and each delivery said.

use kit::TestDatabase;
use kit::spec::{Feed, Run, Spec, SpecError};

use super::{observe, shown};
use crate::judge::verdict;
use crate::step::PaymentStep;
use crate::{Delivery, Handler, OrderCreated, Outcome, Subject, Violation};

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

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject` on `db`, then judges it: for each order, the
/// rule over what the network, the record and the outbox hold for it, and the deliveries for
/// it no fault ended; then the endings every spec shares (a delivery a fault ended must have
/// reported its failure, a neighbour must not have waited).
pub(crate) async fn play<H: Handler>(
    subject: Subject<H>,
    db: &TestDatabase,
    step: &mut PaymentStep,
    run: Run<'_, Delivery>,
) -> Result<(), Violation> {
    let during = run.during;
    let orders = your_orders(run.spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let mut played = run.play(db, &subject.handler, &FEED).await?;
    let mut observed = Vec::new();
    for order in &orders {
        let interleaving = Some(&mut played.interleaving);
        observed.push(observe(step, order.order_id(), &[], during, interleaving).await?);
    }
    for (order, observed) in orders.iter().zip(&observed) {
        let (outcomes, lost) = played.take_results(|event| event.order_id() == order.order_id());
        let trace = played.interleaving.trace();
        verdict(observed, &outcomes, lost, during, Some(trace))?;
    }
    played.end(during)
}
// ANCHOR_END: play

/// One round of `specs/released.spec`: what each worker released together delivered and
/// returned. For each order, the customer must have been charged once and the saga told under
/// one id. A barrier round has no script, so its message has no trace.
pub(crate) async fn judge_released(
    step: &PaymentStep,
    delivered: Vec<(OrderCreated, Result<Outcome, sqlx::Error>)>,
    during: Delivery,
) -> Result<(), Violation> {
    for (order, outcomes) in kit::contract::grouped(delivered, |o| o.order_id().to_string()) {
        let observed = observe(step, order.order_id(), &[], during, None).await?;
        verdict(&observed, &outcomes, 0, during, None)?;
    }
    Ok(())
}
