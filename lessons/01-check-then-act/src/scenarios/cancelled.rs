use kit::{Interleaving, Script};

use super::forced::{LOCK_ACCOUNT_ROW, shown};
use super::{credit_event, prepare};
use crate::judge::judge;
use crate::{Delivery, Handler, Subject, Violation, ViolationKind};

// ANCHOR: cancelled
/// A delivery that fails for a reason of its own: its statement is cancelled while it waits
/// for the account (as `statement_timeout` would cancel it), its transaction rolls back, and its
/// session goes back to the pool. The event is delivered again, to a worker with another
/// connection, which must credit it once.
pub async fn cancelled_then_redelivered<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::CancelledThenRedelivered;
    let (db, ledger) = prepare(&subject, during).await?;
    ledger
        .open_account("acc-1")
        .await
        .map_err(Violation::setup(during))?;
    let event = credit_event("evt-1", "acc-1");
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", LOCK_ACCOUNT_ROW)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", event.clone())
        .cancel("timeout", "worker-1")
        .deliver("worker-2", "again", event.clone());
    // ANCHOR_END: cancelled
    let mut interleaving = Interleaving::new(&db)
        .await
        .map_err(Violation::setup(during))?;
    let ran = (interleaving.run(
        &db,
        script,
        "lock first timeout commit again",
        kit::describe_outcome,
    ))
    .await
    .map_err(|e| Violation::stuck_or_setup(e, interleaving.trace(), during))?;
    let cancelled = ran.cancelled("worker-1");
    let mut outcomes = Vec::new();
    let mut hidden = None;
    for (worker, outcome) in ran.outcomes {
        match outcome {
            // The cancelled delivery's error is the one this scenario causes: it is right.
            Err(_) if cancelled && worker == "worker-1" => {}
            Ok(outcome) if cancelled && worker == "worker-1" => hidden = Some(outcome),
            outcome => outcomes.push(outcome),
        }
    }

    let observed = ledger
        .observe("acc-1", &event)
        .await
        .map_err(Violation::setup(during))?;
    interleaving.note(format!(
        "acc-1 holds {} cents; processed_events holds {} row(s) for evt-1",
        observed.balance_cents, observed.records
    ));
    let trace = interleaving.trace().clone();
    let violation = |kind| Violation {
        kind,
        during,
        trace: Some(trace.clone()),
    };
    judge(observed, &outcomes).map_err(violation)?;
    if let Some(outcome) = hidden {
        return Err(violation(ViolationKind::FailureHidden { outcome }));
    }
    kit::passing_trace("cancelled_then_redelivered", &trace);
    Ok(())
}
