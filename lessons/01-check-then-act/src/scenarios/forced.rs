use kit::Interleaving;

use super::{AMOUNT_CENTS, credit_event, prepare};
use crate::judge::judge;
use crate::{Delivery, Handler, Outcome, Subject, Violation};

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
        let worker = script
            .start(name, &pool, &call, move |pool| handler.call(pool, event))
            .await
            .map_err(setup(during))?;
        workers.push(worker);
    }

    script
        .step(&holder, "COMMIT")
        .await
        .map_err(setup(during))?;
    let mut outcomes = Vec::new();
    for worker in workers {
        outcomes.push(
            script
                .finish(worker, describe)
                .await
                .map_err(setup(during))?,
        );
    }

    let credits = ledger
        .credits("acc-1", AMOUNT_CENTS)
        .await
        .map_err(setup(during))?;
    let records = ledger.records("evt-1").await.map_err(setup(during))?;
    script.note(format!(
        "acc-1 credited {credits} time(s); processed_events holds {records} row(s) for evt-1"
    ));

    let trace = script.trace().clone();
    judge(credits, &outcomes).map_err(|kind| Violation {
        kind,
        during,
        trace: Some(trace.clone()),
    })?;
    insta::assert_snapshot!("forced_interleaving_passes", trace.to_string());
    Ok(())
}
// ANCHOR_END: forced

fn describe(outcome: &Result<Outcome, sqlx::Error>) -> String {
    match outcome {
        Ok(outcome) => format!("{outcome:?}"),
        Err(error) => match error.as_database_error().and_then(|e| e.code()) {
            Some(code) => format!("error (SQLSTATE {code})"),
            None => format!("error: {error}"),
        },
    }
}
