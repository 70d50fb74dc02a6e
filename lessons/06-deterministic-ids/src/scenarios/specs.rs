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
    check: your_order,
    yours: "order.created was delivered in the order your spec gives (a scripted interleaving)",
);

/// The one order.created a spec delivers: the lesson's rule is about one order delivered more
/// than once, so every delivery must carry the same one.
pub fn your_order(spec: &Spec) -> Result<OrderCreated, SpecError> {
    spec.one_event("lesson 06", FEED.read, |order| {
        format!("order.created for {}", order.order_id())
    })
}

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject`, then judges it: the rule over what the
/// network, the record and the outbox hold for the order, and the deliveries no fault ended;
/// then, a delivery a fault ended must have reported its failure.
async fn play<H: Handler>(subject: Subject<H>, run: Run<'_, Delivery>) -> Result<(), Violation> {
    let during = run.during;
    let order = your_order(run.spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let (db, step) = prepare(&subject, during).await?;
    let mut played = run.play(&db, &subject.handler, &FEED).await?;
    let outcomes: Vec<_> = (played.delivered.drain(..))
        .map(|(_, _, outcome)| outcome)
        .collect();
    let interleaving = Some(&mut played.interleaving);
    let observed = observe(&step, order.order_id(), &[], during, interleaving).await?;
    verdict(
        &observed,
        &outcomes,
        during,
        Some(played.interleaving.trace()),
    )?;
    played.unless_failure_hidden(during)
}
// ANCHOR_END: play
