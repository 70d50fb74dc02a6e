use kit::{Common, Script};

use super::specs::{LOCK_ACCOUNT_ROW, shown};
use super::{AMOUNT_CENTS, credit_event, with_account};
use crate::{Delivery, Handler, Outcome, Subject, Violation, ViolationKind};

// ANCHOR: two_events
/// Two *different* events for one account reach two workers while the account's row is
/// locked: both wait, then both must credit. Neither is a duplicate, so a fix that aborts the
/// later one (a stricter isolation level without a retry) or skips it loses money.
pub async fn two_events_race_for_one_account<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::TwoEventsForOneAccount;
    let (db, ledger) = with_account(&subject, during).await?;
    let (first, second) = (
        credit_event("evt-1", "acc-1"),
        credit_event("evt-2", "acc-1"),
    );
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", LOCK_ACCOUNT_ROW)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", first.clone())
        .deliver("worker-2", "second", second.clone());
    // ANCHOR_END: two_events
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "lock first second commit",
        kit::describe_outcome,
        during,
    )
    .await?;

    let (one, two) = (
        (ledger.observe("acc-1", &first).await).map_err(Violation::setup(during))?,
        (ledger.observe("acc-1", &second).await).map_err(Violation::setup(during))?,
    );
    interleaving.note(format!(
        "acc-1 holds {} cents; processed_events holds {} row(s) for evt-1, {} for evt-2",
        one.balance_cents, one.records, two.records
    ));
    let trace = interleaving.trace().clone();
    let violation = |kind| Violation {
        kind,
        during,
        trace: Some(trace.clone()),
    };
    for (_, outcome) in &ran.outcomes {
        match outcome {
            Err(error) => {
                return Err(violation(ViolationKind::Common(Common::failed(error))));
            }
            Ok(Outcome::Applied) => {}
            Ok(outcome) => {
                return Err(violation(ViolationKind::OtherEventTakenForADuplicate {
                    outcome: *outcome,
                }));
            }
        }
    }
    if one.balance_cents != 2 * AMOUNT_CENTS || one.records != 1 || two.records != 1 {
        return Err(violation(ViolationKind::CreditLost {
            balance_cents: one.balance_cents,
            expected_cents: 2 * AMOUNT_CENTS,
        }));
    }
    kit::passing_trace(&trace);
    Ok(())
}
