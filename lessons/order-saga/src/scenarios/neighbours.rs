//! Legitimate work next to the race: *different* events for the same order, and events for
//! other orders. A guard that refuses duplicates by aborting or serialising everything fails
//! these.

use kit::Script;

use super::{AMOUNT_CENTS, LOCK_ORDER_ROW, describe, prepare, shown, succeeded, with_order};
use crate::judge::{Expect, verdict};
use crate::{Delivery, Handler, Subject, Violation};

// ANCHOR: instalments_race
/// Two instalments of one order, each an event of its own, reach two workers while the order's
/// row is locked: both wait, then both must count. Neither is a duplicate, so a guard that
/// aborts the later one (a stricter isolation level without a retry) or skips it (a lock it
/// only tries to take) loses a payment.
pub async fn instalments_race_for_one_order<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "an order of 1000 cents received two instalments (instalment-1, 300 cents, and \
         instalment-2, 400 cents) on two workers at once, the second while the first was inside \
         its transaction (a scripted interleaving)",
    );
    let (db, orders) = with_order(&subject, during, 1000).await?;
    let first = super::payment("instalment-1", "ord-1", 300, None);
    let second = super::payment("instalment-2", "ord-1", 400, None);
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", LOCK_ORDER_ROW)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", first.clone())
        .deliver("worker-2", "second", second.clone());
    // ANCHOR_END: instalments_race
    let (mut interleaving, ran) =
        kit::play(&db, script, "lock first second commit", describe, during).await?;
    let delivered: Vec<_> = [first.clone(), second.clone()]
        .into_iter()
        .zip(ran.outcomes.into_iter().map(|(_, outcome)| outcome))
        .collect();
    let observed = orders
        .observe("ord-1", &[first, second])
        .await
        .map_err(Violation::setup(during))?;
    interleaving.note(observed.summary());
    let trace = interleaving.trace().clone();
    let expect = Expect::Pending { paid_cents: 700 };
    verdict(&expect, &observed, &delivered, during, Some(&trace))?;
    kit::passing_trace(&trace);
    Ok(())
}

// ANCHOR: other_orders
/// While one delivery waits for its order's row, a payment for *another* order must go through
/// without waiting: the guards lock the order an event is about, and nothing more. A handler
/// that locks a whole table, or one advisory key for every order, is still correct, but one
/// slow delivery then stalls every order's deliveries behind it.
pub async fn other_orders_do_not_wait<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "payment.succeeded pay-1 for ord-1 waited for ord-1's row, and meanwhile \
         payment.succeeded pay-2 for another order, ord-2, reached a second worker (a scripted \
         interleaving)",
    );
    let (db, orders) = prepare(&subject, during).await?;
    for order in ["ord-1", "ord-2"] {
        (orders.place(order, AMOUNT_CENTS).await).map_err(Violation::setup(during))?;
    }
    let (this, other) = (succeeded("pay-1", "ord-1"), succeeded("pay-2", "ord-2"));
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", LOCK_ORDER_ROW)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", this.clone())
        .deliver("worker-2", "other", other.clone());
    // ANCHOR_END: other_orders
    let (mut interleaving, ran) =
        kit::play(&db, script, "lock first other commit", describe, during).await?;
    let waited = ran.waited("worker-2");
    let mut outcomes = ran.outcomes.into_iter().map(|(_, outcome)| outcome);
    let mut judged = Vec::new();
    for event in [this, other] {
        let outcome = outcomes.next().expect("one outcome per delivery");
        let observed = orders
            .observe(event.order_id(), std::slice::from_ref(&event))
            .await
            .map_err(Violation::setup(during))?;
        interleaving.note(observed.summary());
        judged.push((event, outcome, observed));
    }
    let trace = interleaving.trace().clone();
    for (event, outcome, observed) in judged {
        let expect = Expect::ResolvedBy(vec![event.clone()]);
        verdict(
            &expect,
            &observed,
            &[(event, outcome)],
            during,
            Some(&trace),
        )?;
    }
    Violation::unless_waited(waited, "ord-2", "ord-1's row", during, &trace)
}
