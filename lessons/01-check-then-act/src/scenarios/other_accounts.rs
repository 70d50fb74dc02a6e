use kit::{Common, Script};

use super::specs::{LOCK_ACCOUNT_ROW, shown};
use super::{credit_event, prepare};
use crate::judge::judge;
use crate::{Delivery, Handler, Subject, Violation, ViolationKind};

// ANCHOR: other_accounts
/// While one delivery waits for its account's row, an event for *another* account must go
/// through without waiting: the key and the row lock touch only what the event is about. A
/// handler that locks a whole table, or one advisory key for every event, is still correct,
/// but one slow delivery then stalls every account's.
pub async fn other_accounts_do_not_wait<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::AnotherAccount;
    let (db, ledger) = prepare(&subject, during).await?;
    for account in ["acc-1", "acc-2"] {
        (ledger.open_account(account).await).map_err(Violation::setup(during))?;
    }
    let (this, other) = (
        credit_event("evt-1", "acc-1"),
        credit_event("evt-2", "acc-2"),
    );
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", LOCK_ACCOUNT_ROW)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", this.clone())
        .deliver("worker-2", "other", other.clone());
    // ANCHOR_END: other_accounts
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "lock first other commit",
        kit::describe_outcome,
        during,
    )
    .await?;
    let waited = ran.waited("worker-2");
    let mut judged = Vec::new();
    for ((_, outcome), (account, event)) in ran
        .outcomes
        .into_iter()
        .zip([("acc-1", &this), ("acc-2", &other)])
    {
        let observed = (ledger.observe(account, event).await).map_err(Violation::setup(during))?;
        interleaving.note(format!(
            "{account} holds {} cents; processed_events holds {} row(s) for {}",
            observed.balance_cents,
            observed.records,
            event.id()
        ));
        judged.push((observed, outcome));
    }
    let trace = interleaving.trace().clone();
    let violation = |kind| Violation {
        kind,
        during,
        trace: Some(trace.clone()),
    };
    for (observed, outcome) in judged {
        judge(observed, &[outcome], 0).map_err(violation)?;
    }
    if waited {
        return Err(violation(ViolationKind::Common(
            Common::WaitedOnANeighbour {
                waiting: "acc-2".into(),
                held: "acc-1's row".into(),
            },
        )));
    }
    kit::passing_trace(&trace);
    Ok(())
}
