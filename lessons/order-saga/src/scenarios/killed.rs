use kit::{Fault, Script};

use super::{
    AMOUNT_CENTS, LOCK_ORDER_ROW, describe, gave_up_without_waiting, shown, succeeded, with_order,
};
use crate::judge::{Expect, verdict};
use crate::{Delivery, Handler, Subject, Violation};

/// The holder's lock on the outbox table: the first delivery stops as it writes the outbox row
/// (with LOCK_ORDER_ROW, at its first touch of the order).
const LOCK_OUTBOX: &str = "BEGIN; LOCK TABLE outbox IN SHARE MODE";

/// The redelivery races the first delivery, which dies while the redelivery waits on it.
const WHILE_THE_FIRST_WAITS: &str = "lock first second crash commit";
/// The first delivery dies; the broker delivers the event again once it is gone.
const AFTER_THE_CRASH: &str = "lock first crash commit second";

/// The fault script: the first delivery is stopped on the holder's lock, then killed (its
/// backend terminated, as when the consumer process dies), and the event is delivered again.
/// Whatever the first delivery had committed stays; whatever it had not is rolled back. The
/// redelivery must then apply the event, exactly once.
async fn killed<H: Handler>(
    subject: Subject<H>,
    during: Delivery,
    lock: &str,
    permutation: &str,
) -> Result<(), Violation> {
    let (db, orders) = with_order(&subject, during, AMOUNT_CENTS).await?;
    let event = succeeded("pay-1", "ord-1");
    // ANCHOR: fault_script
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", lock)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", event.clone())
        .kill("crash", "worker-1")
        .deliver("worker-2", "second", event.clone());
    // ANCHOR_END: fault_script
    let (mut interleaving, ran) = kit::play(&db, script, permutation, describe, during).await?;
    // A redelivery after the crash has nothing to wait for; one that raced the first does.
    let waited = permutation == AFTER_THE_CRASH || ran.waited("worker-2");
    let (kept, hidden) = ran.apart_from_failed("worker-1");
    let delivered: Vec<_> = (kept.into_iter())
        .map(|(_, outcome)| (event.clone(), outcome))
        .collect();

    let observed = orders
        .observe("ord-1", std::slice::from_ref(&event))
        .await
        .map_err(Violation::setup(during))?;
    interleaving.note(observed.summary());
    let trace = interleaving.trace().clone();
    let expect = Expect::ResolvedBy(vec![event]);
    verdict(&expect, &observed, &delivered, during, Some(&trace))?;
    let last = &delivered[delivered.len() - 1].1;
    gave_up_without_waiting(waited, last, during, &trace)?;
    // Its session gone, the first delivery's handler ran on, and what it reported is what a
    // consumer that only lost its connection would act on.
    Violation::unless_failure_hidden(hidden, Fault::Killed, during, &trace)
}

// ANCHOR: dies_while_duplicate_waits
/// The first delivery dies after recording the event, while a redelivery waits on its
/// uncommitted record. The record rolls back with the rest, so the waiting redelivery must be
/// the one that applies the event.
pub async fn first_delivery_dies_while_a_duplicate_waits<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    killed(
        subject,
        Delivery::Story(
            "payment.succeeded pay-1 reached a second worker while the first was inside its \
             transaction, and then the first died there (a scripted interleaving)",
        ),
        LOCK_ORDER_ROW,
        WHILE_THE_FIRST_WAITS,
    )
    .await
}
// ANCHOR_END: dies_while_duplicate_waits

// ANCHOR: crash_before_effect
/// The essay's first detail as a fault test: the delivery dies before the order changes, and
/// the broker redelivers the event. Whatever the first delivery committed decides whether the
/// redelivery can still apply it.
pub async fn crash_before_the_effect_then_redelivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    killed(
        subject,
        Delivery::Story(
            "payment.succeeded pay-1 was delivered, the worker died before the order changed, \
             and the event was delivered again (a scripted crash)",
        ),
        LOCK_ORDER_ROW,
        AFTER_THE_CRASH,
    )
    .await
}
// ANCHOR_END: crash_before_effect

// ANCHOR: crash_before_outbox
/// The delivery dies as it writes the outbox row, after the order's change, and the broker
/// redelivers the event. The order must end resolved *and* announced, once.
pub async fn crash_before_the_outbox_row_then_redelivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    killed(
        subject,
        Delivery::Story(
            "payment.succeeded pay-1 was delivered, the worker died as it wrote the outbox row, \
             and the event was delivered again (a scripted crash)",
        ),
        LOCK_OUTBOX,
        AFTER_THE_CRASH,
    )
    .await
}
// ANCHOR_END: crash_before_outbox
