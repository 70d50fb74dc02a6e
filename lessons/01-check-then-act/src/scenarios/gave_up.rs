use kit::spec::Spec;
use kit::{Common, Fault};

use super::{credit_event, observe_into, script_of, spec, with_account};
use crate::judge::judge;
use crate::{Delivery, Handler, Subject, Violation, ViolationKind};

/// The duplicate that gives up, as data (specs/gave_up.spec).
pub fn gave_up_spec() -> Spec {
    spec("gave_up.spec", include_str!("../../specs/gave_up.spec"))
}

// ANCHOR: gave_up
/// The other ending of the duplicate's wait. Worker-2's delivery reaches the key while worker-1's
/// transaction is open, and waits; but its wait ends in an error of its own (its statement is
/// cancelled, as `statement_timeout` would cancel it), not in a unique violation. Then worker-1
/// fails too, and rolls back: nothing is recorded, nothing credited. Neither delivery may say
/// otherwise, or the sender stops delivering an event nobody applied. The event is delivered a
/// third time, which must credit it once.
///
/// PostgreSQL's own isolation tests play every insert conflict twice, with the first session
/// committing and with it aborting: the loser cannot know which until the wait is over.
pub async fn duplicate_gives_up_then_first_rolls_back<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::GaveUpWhileTheFirstRolledBack;
    let (db, ledger) = with_account(&subject, during).await?;
    let event = credit_event("evt-1", "acc-1");
    let spec = gave_up_spec();
    (spec.set_up(&db).await).map_err(Violation::setup(during))?;
    let script = script_of(&spec, &subject.handler);
    let order = spec.permutations[0].order();
    let (mut interleaving, ran) =
        kit::play(&db, script, &order, kit::describe_outcome, during).await?;
    // ANCHOR_END: gave_up
    let (kept, hidden) = ran.apart_from_every_failed(&["worker-1", "worker-2"]);
    let outcomes: Vec<_> = kept.into_iter().map(|(_, outcome)| outcome).collect();

    let observed = observe_into(&mut interleaving, &ledger, &event, during).await?;
    let trace = interleaving.trace().clone();
    let violation = |kind| Violation {
        kind,
        during,
        trace: Some(trace.clone()),
    };
    // What a dying delivery reported is judged first: the third delivery, which the test
    // scripts, is one a real sender would not make after an `AlreadyApplied`.
    if let Some((worker, outcome)) = hidden.into_iter().next() {
        return Err(violation(if worker == "worker-2" {
            ViolationKind::WaitEndedTakenForADuplicate { outcome }
        } else {
            ViolationKind::Common(Common::FailureHidden {
                outcome,
                fault: Fault::Cancelled,
            })
        }));
    }
    judge(observed, &outcomes).map_err(violation)?;
    kit::passing_trace(&trace);
    Ok(())
}
