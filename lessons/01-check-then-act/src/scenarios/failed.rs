use kit::Fault;
use kit::spec::Spec;

use super::{credit_event, observe_into, script_of, spec, with_account};
use crate::judge::judge;
use crate::{Delivery, Handler, Subject, Violation};

/// A delivery that fails and is delivered again, as data (specs/failed.spec): cancelled in its
/// first order, killed in its second.
pub fn failed_spec() -> Spec {
    spec("failed.spec", include_str!("../../specs/failed.spec"))
}

// ANCHOR: cancelled
/// A delivery that fails for a reason of its own: its statement is cancelled while it waits
/// for the account (as `statement_timeout` would cancel it), its transaction rolls back, and its
/// session goes back to the pool. The event is delivered again, to a worker with another
/// connection, which must credit it once.
pub async fn cancelled_then_redelivered<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    failed_then_redelivered(subject, Fault::Cancelled).await
}
// ANCHOR_END: cancelled

/// The same with the first delivery's session killed, as when its process dies: its
/// transaction rolls back, and the redelivery must credit the event once.
pub async fn killed_then_redelivered<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    failed_then_redelivered(subject, Fault::Killed).await
}

async fn failed_then_redelivered<H: Handler>(
    subject: Subject<H>,
    fault: Fault,
) -> Result<(), Violation> {
    let during = match fault {
        Fault::Cancelled => Delivery::CancelledThenRedelivered,
        Fault::Killed => Delivery::KilledThenRedelivered,
    };
    let (db, ledger) = with_account(&subject, during).await?;
    let event = credit_event("evt-1", "acc-1");
    let spec = failed_spec();
    (spec.set_up(&db).await).map_err(Violation::setup(during))?;
    let script = script_of(&spec, &subject.handler);
    // The spec's first order cancels worker-1's statement, its second kills its session.
    let order = spec.permutations[usize::from(fault == Fault::Killed)].order();
    let (mut interleaving, ran) =
        kit::play(&db, script, &order, kit::describe_outcome, during).await?;
    let (kept, hidden) = ran.apart_from_failed("worker-1");
    let outcomes: Vec<_> = kept.into_iter().map(|(_, outcome)| outcome).collect();

    let observed = observe_into(&mut interleaving, &ledger, &event, during).await?;
    let trace = interleaving.trace();
    judge(observed, &outcomes).map_err(Violation::caught(during, Some(trace)))?;
    Violation::unless_failure_hidden(hidden, fault, during, trace)
}
