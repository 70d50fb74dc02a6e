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
    check: your_order,
    yours: "your spec's events were delivered in the order it gives (a scripted interleaving)",
);

/// The order every delivery of a spec is for: the rule judges one order's reservation, settled
/// once.
pub fn your_order(spec: &Spec) -> Result<String, SpecError> {
    let order = |event: &ReservationEvent| format!("an event for {}", event.order_id());
    let events = spec.all_for("lesson 10", FEED.read, order, "one order's reservation")?;
    Ok(events[0].order_id().to_string())
}

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject`, then judges it: the reservation settled
/// once, by the first event to reach it, the units back on the shelf at most once, the release
/// announced once, each delivery's report true; and a delivery a fault ended must have said so.
async fn play<H: Handler>(subject: Subject<H>, run: Run<'_, Delivery>) -> Result<(), Violation> {
    let during = run.during;
    let order = your_order(run.spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let (db, inventory) = with_reservations(&subject, during, &[&order]).await?;
    let mut played = run.play(&db, &subject.handler, &FEED).await?;
    let observed = observe(&inventory, &order, during, Some(&mut played.interleaving)).await?;
    let trace = played.interleaving.trace().clone();
    let outcomes: Vec<_> = (played.delivered.drain(..))
        .map(|(_, _, outcome)| outcome)
        .collect();
    verdict(&observed, &outcomes, during, Some(&trace))?;
    played.unless_failure_hidden(during)
}
// ANCHOR_END: play
