//! The saga lessons' scripted scenarios are data, `specs/*.spec`, and this is how every one of
//! them is played: a fresh database with the events' order placed, pending, the spec's sessions
//! in its order (the kit's engine), then the rule (`judge.rs`) over what the order, its outbox
//! and `processed_events` show and what each delivery said. Each lesson's `tests.list` picks
//! the permutations it plays: lesson 02's solution has no guard 2, so it plays no
//! contradicting events.

use kit::spec::{Permutation, Run, Spec, SpecError};

use super::{gave_up_without_waiting, prepare, shown};
use crate::judge::{Expect, verdict};
use crate::{Delivery, Handler, Outcome, PaymentEvent, Subject, Violation};

kit::lesson_specs!(
    feed: PaymentEvent => Outcome, read: PaymentEvent::from_json, shown: shown,
    check: your_order,
    yours: "your spec's events were delivered in the order it gives (a scripted interleaving)",
);

/// The events a spec delivers, in its order, all for one order: the rule judges one order,
/// resolved once by whichever event reached it first.
pub fn your_order(spec: &Spec) -> Result<Vec<PaymentEvent>, SpecError> {
    let order = |event: &PaymentEvent| format!("an event for {}", event.order_id());
    spec.all_for("the order saga", FEED.read, order, "one order")
}

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject`, then judges it: the order must end resolved
/// by the event of the first delivery the permutation plays (the first to reach the order),
/// announced once; a delivery the spec expects to wait must not give up on its event without
/// waiting; and a delivery a fault ended must have said so.
async fn play<H: Handler>(subject: Subject<H>, run: Run<'_, Delivery>) -> Result<(), Violation> {
    let (spec, permutation, during) = (run.spec, run.permutation, run.during);
    let events = your_order(spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let order = events[0].order_id();
    let (db, orders) = prepare(&subject, during).await?;
    (orders.place(order, events[0].amount_cents()).await).map_err(Violation::setup(during))?;
    let mut played = run.play(&db, &subject.handler, &FEED).await?;
    let observed = (orders.observe(order, &events).await).map_err(Violation::setup(during))?;
    played.interleaving.note(observed.summary());
    let trace = played.interleaving.trace().clone();
    let (sessions, delivered): (Vec<String>, Vec<_>) = (played.delivered.drain(..))
        .map(|(session, event, outcome)| (session, (event, outcome)))
        .unzip();
    let expect = Expect::ResolvedBy(first_to_reach_the_order(spec, permutation, &played.ended));
    verdict(&expect, &observed, &delivered, during, Some(&trace))?;
    for (session, (_, outcome)) in sessions.iter().zip(&delivered) {
        if permutation.waits.contains(session) {
            gave_up_without_waiting(played.waited(session), outcome, during, &trace)?;
        }
    }
    played.end(during)
}

/// The event that may resolve the order: the first delivery's in the permutation's order, or,
/// if a fault ended that one before it committed, the next delivery's too.
fn first_to_reach_the_order(
    spec: &Spec,
    permutation: &Permutation,
    ended: &[(String, PaymentEvent, kit::Fault)],
) -> Vec<PaymentEvent> {
    let deliveries = spec.deliveries();
    let mut candidates = Vec::new();
    for step in &permutation.steps {
        let Some((session, _)) = spec.step(step) else {
            continue;
        };
        let Some((_, _, json)) = deliveries.iter().find(|(s, _, _)| *s == session.name) else {
            continue;
        };
        candidates.push((FEED.read)(json).expect("checked before playing"));
        if !ended.iter().any(|(s, _, _)| *s == session.name) {
            break;
        }
    }
    candidates
}
// ANCHOR_END: play
