use super::{AMOUNT_CENTS, failed, prepare, succeeded};
use crate::judge::{Expect, verdict};
use crate::{Delivery, Handler, PaymentEvent, Subject, Violation, ViolationKind};

/// Delivers `events` to one order, each after the previous delivery returned, and judges.
async fn one_after_another<H: Handler>(
    subject: Subject<H>,
    during: Delivery,
    amount_cents: i64,
    events: Vec<PaymentEvent>,
    expect: Expect,
) -> Result<(), Violation> {
    let (db, orders) = prepare(&subject, during).await?;
    orders
        .place("ord-1", amount_cents)
        .await
        .map_err(Violation::setup(during))?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let mut delivered = Vec::new();
    for event in events {
        let outcome = subject.handler.call(pool.clone(), event.clone()).await;
        delivered.push((event, outcome));
    }
    let events: Vec<PaymentEvent> = delivered.iter().map(|(e, _)| e.clone()).collect();
    let observed = orders
        .observe("ord-1", &events)
        .await
        .map_err(Violation::setup(during))?;
    verdict(&expect, &observed, &delivered, during, None)
}

// ANCHOR: redelivered_after_commit
/// The redelivery everyone tests first: the same payment.succeeded, twice, one after the
/// other. It passes against every exercise, broken or not: the second delivery starts after the
/// first committed, and any check at all sees that.
pub async fn redelivered_after_commit<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let event = succeeded("pay-1", "ord-1");
    one_after_another(
        subject,
        Delivery::Story(
            "payment.succeeded pay-1 was delivered twice, one delivery after the other",
        ),
        AMOUNT_CENTS,
        vec![event.clone(), event.clone()],
        Expect::ResolvedBy(vec![event]),
    )
    .await
}
// ANCHOR_END: redelivered_after_commit

// ANCHOR: late_failure
/// The case only the terminal-state guard catches. The order is confirmed; then a
/// payment.failed with a new id arrives for it. Dedupe has never seen that id and lets it
/// through; only the order's status can refuse it.
pub async fn late_failure_after_confirmation<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let confirmed_by = succeeded("pay-1", "ord-1");
    let late = failed("late-failure-1", "ord-1");
    one_after_another(
        subject,
        Delivery::Story(
            "payment.succeeded pay-1 confirmed the order, then a late payment.failed \
             (late-failure-1, a new id) arrived for it",
        ),
        AMOUNT_CENTS,
        vec![confirmed_by.clone(), late],
        Expect::ResolvedBy(vec![confirmed_by]),
    )
    .await
}
// ANCHOR_END: late_failure

// ANCHOR: instalment
/// The case only the dedupe guard catches. An order of 1000 cents is paid in instalments, and
/// the first instalment (600 cents) is delivered twice. The order is still pending both times,
/// so a terminal-state check waves the redelivery through; only the event id can tell a
/// redelivered instalment from a second one.
pub async fn redelivered_instalment<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let instalment = super::payment("instalment-1", "ord-1", 600, None);
    one_after_another(
        subject,
        Delivery::Story(
            "an order of 1000 cents received its first instalment (instalment-1, 600 cents) \
             twice, one delivery after the other",
        ),
        1000,
        vec![instalment.clone(), instalment],
        Expect::Pending { paid_cents: 600 },
    )
    .await
}
// ANCHOR_END: instalment

/// Only a duplicate is "already handled": an event for an order that does not exist is an
/// error, and leaves no record behind.
pub async fn event_for_an_unknown_order<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during =
        Delivery::Story("payment.succeeded pay-1 was delivered for an order that does not exist");
    let (db, orders) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let event = succeeded("pay-1", "ord-missing");
    let outcome = subject.handler.call(pool, event.clone()).await;
    let observed = orders
        .observe("ord-missing", std::slice::from_ref(&event))
        .await
        .map_err(Violation::setup(during))?;
    let violation = |kind| Violation {
        kind,
        during,
        trace: None,
    };
    match outcome {
        Ok(outcome) => Err(violation(ViolationKind::ErrorHidden { outcome })),
        Err(_) if !observed.recorded.is_empty() => {
            Err(violation(ViolationKind::RecordedWithoutEffect))
        }
        Err(_) => Ok(()),
    }
}
