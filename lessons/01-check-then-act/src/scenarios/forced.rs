use kit::spec::Spec;

use super::{AMOUNT_CENTS, credit_event, script_of, spec, with_account};
use crate::judge::judge;
use crate::{CreditEvent, Delivery, Handler, Subject, Violation, ViolationKind};

/// The holder's lock on the account's row: a worker stops at its first touch of the account.
pub(super) const LOCK_ACCOUNT_ROW: &str =
    "BEGIN; SELECT 1 FROM accounts WHERE id = 'acc-1' FOR UPDATE";

/// The forced race as data (specs/forced.spec): its sessions, steps and order.
pub fn forced_spec() -> Spec {
    spec("forced.spec", include_str!("../../specs/forced.spec"))
}

/// How the trace shows a delivery.
pub(super) fn shown(event: &CreditEvent) -> String {
    format!("apply_credit({}, +{AMOUNT_CENTS})", event.id())
}

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
    let (db, ledger) = with_account(&subject, during).await?;
    let event = credit_event("evt-1", "acc-1");
    let spec = forced_spec();
    (spec.set_up(&db).await).map_err(Violation::setup(during))?;
    let script = script_of(&spec, &subject.handler);
    let order = spec.permutations[0].order();
    let (mut interleaving, ran) =
        kit::play(&db, script, &order, kit::describe_outcome, during).await?;
    let second_waited = ran.waited("worker-2");
    let outcomes: Vec<_> = ran
        .outcomes
        .into_iter()
        .map(|(_, outcome)| outcome)
        .collect();

    let observed = ledger
        .observe("acc-1", &event)
        .await
        .map_err(Violation::setup(during))?;
    let credited = match observed.credits() {
        Some(credits) => format!("credited {credits} time(s)"),
        None => format!("holds {} cents", observed.balance_cents),
    };
    interleaving.note(format!(
        "acc-1 {credited}; processed_events holds {} row(s) for evt-1",
        observed.records
    ));

    let trace = interleaving.trace().clone();
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
    kit::passing_trace(&trace);
    Ok(())
}
// ANCHOR_END: forced
