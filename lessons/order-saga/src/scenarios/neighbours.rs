//! Legitimate work next to the race: *different* events for the same order. A guard that
//! refuses duplicates by aborting or serialising everything fails this. (Events for other orders
//! are `specs/neighbours.spec`.)

use kit::Script;

use super::{LOCK_ORDER_ROW, describe, shown, with_order};
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
