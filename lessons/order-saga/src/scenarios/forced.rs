use kit::Script;

use super::{
    AMOUNT_CENTS, LOCK_ORDER_ROW, describe, failed, gave_up_without_waiting, shown, succeeded,
    with_order,
};
use crate::judge::{Expect, verdict};
use crate::{Delivery, Handler, PaymentEvent, Subject, Violation};

/// The script both races share, as PostgreSQL's isolation tester would write it. `holder`, a
/// session of the test, locks the order's row, so the first worker stops inside its transaction
/// at its first touch of the order, holding whatever it did before. Once the observer *sees* it
/// waiting, the second worker starts; once the second is seen waiting (or done), the holder
/// lets go.
async fn race_inside_a_transaction<H: Handler>(
    subject: Subject<H>,
    during: Delivery,
    lock: &str,
    first: PaymentEvent,
    second: PaymentEvent,
) -> Result<(), Violation> {
    let (db, orders) = with_order(&subject, during, AMOUNT_CENTS).await?;
    // ANCHOR: race_script
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", lock)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", first.clone())
        .deliver("worker-2", "second", second.clone());
    let permutation = "lock first second commit";
    // ANCHOR_END: race_script
    let (mut interleaving, ran) = kit::play(&db, script, permutation, describe, during).await?;
    let second_waited = ran.waited("worker-2");
    let delivered: Vec<_> = [first.clone(), second.clone()]
        .into_iter()
        .zip(ran.outcomes.into_iter().map(|(_, outcome)| outcome))
        .collect();

    let observed = orders
        .observe("ord-1", &[first.clone(), second])
        .await
        .map_err(Violation::setup(during))?;
    interleaving.note(observed.summary());
    let trace = interleaving.trace().clone();
    let expect = Expect::ResolvedBy(vec![first]);
    verdict(&expect, &observed, &delivered, during, Some(&trace))?;
    gave_up_without_waiting(second_waited, &delivered[1].1, during, &trace)?;
    kit::passing_trace(&trace);
    Ok(())
}

// ANCHOR: duplicate_race
/// Guard 1's race, made certain: the same payment.succeeded reaches a second worker while the
/// first is inside its transaction, its record inserted but not committed.
pub async fn duplicate_races_an_uncommitted_delivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let event = succeeded("pay-1", "ord-1");
    race_inside_a_transaction(
        subject,
        Delivery::Story(
            "payment.succeeded pay-1 reached two workers, the second while the first was still \
             inside its transaction (a scripted interleaving)",
        ),
        LOCK_ORDER_ROW,
        event.clone(),
        event,
    )
    .await
}
// ANCHOR_END: duplicate_race

// ANCHOR: contradicting_race
/// Guard 2's race, made certain: two *different* events for one pending order, a
/// payment.succeeded and a payment.failed, the second delivered while the first is inside its
/// transaction. The first to reach the order decides it; the other must leave it alone.
pub async fn contradicting_events_race<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    race_inside_a_transaction(
        subject,
        Delivery::Story(
            "payment.succeeded pay-1 and payment.failed pay-2 reached two workers for the same \
             pending order, the second while the first was still inside its transaction (a \
             scripted interleaving)",
        ),
        LOCK_ORDER_ROW,
        succeeded("pay-1", "ord-1"),
        failed("pay-2", "ord-1"),
    )
    .await
}
// ANCHOR_END: contradicting_race

/// A share lock on the order's row, as a report reading it `FOR SHARE` would hold: every read
/// gets past it, even a locking one as weak as itself, and a delivery stops at its first write.
const SHARE_ORDER_ROW: &str = "BEGIN; SELECT 1 FROM orders WHERE id = 'ord-1' FOR SHARE";

// ANCHOR: race_past_a_reader
/// Guard 2's race again, with the holder only *reading* the order under a share lock. Both
/// deliveries now get as far as their first write before anything stops them, so a guard whose
/// read lock is shared (`FOR SHARE`) lets both read "pending", and the two then wait on each
/// other's share lock to write: a deadlock, every run. `FOR UPDATE` waits for the reader, then
/// serialises the two as before.
pub async fn contradicting_events_race_past_a_reader<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    race_inside_a_transaction(
        subject,
        Delivery::Story(
            "payment.succeeded pay-1 and payment.failed pay-2 reached two workers for the same \
             pending order while another session held a share lock on it (a report reading it \
             FOR SHARE), the second while the first was still inside its transaction (a \
             scripted interleaving)",
        ),
        SHARE_ORDER_ROW,
        succeeded("pay-1", "ord-1"),
        failed("pay-2", "ord-1"),
    )
    .await
}
// ANCHOR_END: race_past_a_reader
