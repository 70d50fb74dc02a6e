use super::{credit_event, prepare};
use crate::{Delivery, Handler, Subject, Violation, ViolationKind};

// ANCHOR: unknown_account
/// Only a duplicate is "already applied". An event for an account that does not exist is a real
/// failure: the handler must return an error, and must not leave the event recorded as applied,
/// or the sender would never try again.
pub async fn unknown_account<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::ToUnknownAccount;
    let (db, ledger) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let event = credit_event("evt-1", "acc-nobody-opened");

    let outcome = subject.handler.call(pool, event.clone()).await;

    let violation = |kind| Violation {
        kind,
        during,
        trace: None,
    };
    if let Ok(outcome) = outcome {
        return Err(violation(ViolationKind::ErrorHidden { outcome }));
    }
    let observed = ledger
        .observe("acc-nobody-opened", &event)
        .await
        .map_err(Violation::setup(during))?;
    if observed.records > 0 {
        return Err(violation(ViolationKind::RecordedWithoutEffect));
    }
    Ok(())
}
// ANCHOR_END: unknown_account
