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
    check: your_orders,
    yours: "your spec's events were delivered in the order it gives (a scripted interleaving)",
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

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject`, then judges it: each order must end
/// resolved by the event of the first delivery for it the permutation plays (the first to reach
/// the order), announced once; a delivery the spec expects to wait must not give up on its event
/// without waiting; and the endings every spec shares (a delivery a fault ended must have said
/// so, a neighbour must not have waited).
async fn play<H: Handler>(subject: Subject<H>, run: Run<'_, Delivery>) -> Result<(), Violation> {
    let (spec, permutation, during) = (run.spec, run.permutation, run.during);
    let orders = your_orders(spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let (db, saga) = prepare(&subject, during).await?;
    for events in &orders {
        let (order, amount) = (events[0].order_id(), events[0].amount_cents());
        (saga.place(order, amount).await).map_err(Violation::setup(during))?;
    }
    let mut played = run.play(&db, &subject.handler, &FEED).await?;
    let mut observed = Vec::new();
    for events in &orders {
        let order = events[0].order_id();
        let seen = (saga.observe(order, events).await).map_err(Violation::setup(during))?;
        played.interleaving.note(seen.summary());
        observed.push(seen);
    }
    let trace = played.interleaving.trace().clone();
    let mut delivered = std::mem::take(&mut played.delivered);
    for (events, observed) in orders.iter().zip(&observed) {
        let order = events[0].order_id();
        let (sessions, for_it): (Vec<String>, Vec<_>) = (delivered)
            .extract_if(.., |(_, event, _)| event.order_id() == order)
            .map(|(session, event, outcome)| (session, (event, outcome)))
            .unzip();
        let expect = Expect::ResolvedBy(first_to_reach(order, spec, permutation, &played.ended));
        verdict(&expect, observed, &for_it, during, Some(&trace))?;
        for (session, (_, outcome)) in sessions.iter().zip(&for_it) {
            if permutation.waits.contains(session) {
                gave_up_without_waiting(played.waited(session), outcome, during, &trace)?;
            }
        }
    }
    played.end(during)
}

/// The event that may resolve `order`: the first delivery's for it in the permutation's order,
/// or, if a fault ended that one before it committed, the next delivery's too.
fn first_to_reach(
    order: &str,
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
        let event = (FEED.read)(json).expect("checked before playing");
        if event.order_id() != order {
            continue;
        }
        candidates.push(event);
        if !ended.iter().any(|(s, _, _)| *s == session.name) {
            break;
        }
    }
    candidates
}
// ANCHOR_END: play
