use kit::Interleaving;

use super::{AMOUNT_CENTS, credit_event, prepare};
use crate::judge::judge;
use crate::{Delivery, Handler, Subject, Violation, ViolationKind};

// ANCHOR: forced
/// The race, made certain. A scripted session (`holder`) locks the account first, so the first
/// worker stops inside its transaction, holding whatever it did before the credit. Only once the
/// observer *sees* it waiting does the second worker start, and only once the second is seen
/// waiting (or done) does the holder let go.
///
/// Against check-then-act, the second worker's check runs while the first worker's write is
/// uncommitted, finds nothing, and both credit: every run. Against the key, the second worker's
/// insert waits on the first worker's row, then loses: every run.
pub async fn forced_interleaving<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Scripted { workers: 2 };
    let setup = Violation::setup;
    let (db, ledger) = prepare(&subject, during).await?;
    ledger.open_account("acc-1").await.map_err(setup(during))?;
    let event = credit_event("evt-1", "acc-1");
    let call = format!("apply_credit({}, +{AMOUNT_CENTS})", event.id());

    let mut script = Interleaving::new(&db).await.map_err(setup(during))?;
    let holder = script.session(&db, "holder").await.map_err(setup(during))?;
    script
        .step(
            &holder,
            "BEGIN; SELECT 1 FROM accounts WHERE id = 'acc-1' FOR UPDATE",
        )
        .await
        .map_err(setup(during))?;

    let mut workers = Vec::new();
    for name in ["worker-1", "worker-2"] {
        let pool = db.pool(1).await.map_err(setup(during))?;
        let (handler, event) = (subject.handler.clone(), event.clone());
        let started = script
            .start(name, &pool, &call, move |pool| handler.call(pool, event))
            .await;
        workers.push(started.map_err(|e| Violation::stuck_or_setup(e, script.trace(), during))?);
    }
    let second_waited = workers[1].was_waiting();

    script
        .step(&holder, "COMMIT")
        .await
        .map_err(setup(during))?;
    let mut outcomes = Vec::new();
    for worker in workers {
        let finished = script.finish(worker, kit::describe_outcome).await;
        outcomes.push(finished.map_err(|e| Violation::stuck_or_setup(e, script.trace(), during))?);
    }

    let observed = ledger
        .observe("acc-1", &event)
        .await
        .map_err(setup(during))?;
    let credited = match observed.credits() {
        Some(credits) => format!("credited {credits} time(s)"),
        None => format!("holds {} cents", observed.balance_cents),
    };
    script.note(format!(
        "acc-1 {credited}; processed_events holds {} row(s) for evt-1",
        observed.records
    ));

    let trace = script.trace().clone();
    let violation = |kind| Violation {
        kind,
        during,
        trace: Some(trace.clone()),
    };
    judge(observed, &outcomes).map_err(violation)?;
    // Right outcome, wrong reason: the second delivery may only give up once the first one's
    // transaction has ended, since until then nobody knows whether the event will be applied.
    if !second_waited {
        return Err(violation(ViolationKind::DecidedWithoutWaiting));
    }
    insta::assert_snapshot!("forced_interleaving_passes", trace.to_string());
    Ok(())
}
// ANCHOR_END: forced
