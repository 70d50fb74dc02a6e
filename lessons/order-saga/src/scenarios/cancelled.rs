use kit::Script;

use super::{AMOUNT_CENTS, LOCK_ORDER_ROW, describe, shown, succeeded, with_order};
use crate::judge::{Expect, verdict};
use crate::{Delivery, Handler, Subject, Violation};

// ANCHOR: cancelled_then_redelivered
/// A delivery that fails for a reason of its own, not because of a duplicate: its statement is
/// cancelled while it waits for the order's row (as `statement_timeout` would cancel it), so
/// its transaction rolls back, and its session goes back to the consumer's pool. The broker
/// delivers the event again, to a worker with another connection. That delivery must apply the
/// event, once: nothing the failed one did, or left in its session, may stand in the way.
pub async fn cancelled_delivery_then_redelivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "payment.succeeded pay-1 was delivered, its statement was cancelled while it waited for \
         the order (as a statement timeout would), and the event was delivered again on another \
         connection (a scripted interleaving)",
    );
    let (db, orders) = with_order(&subject, during, AMOUNT_CENTS).await?;
    let event = succeeded("pay-1", "ord-1");
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", LOCK_ORDER_ROW)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", event.clone())
        .cancel("timeout", "worker-1")
        .deliver("worker-2", "again", event.clone());
    let permutation = "lock first timeout commit again";
    // ANCHOR_END: cancelled_then_redelivered
    let (mut interleaving, ran) = kit::play(&db, script, permutation, describe, during).await?;
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
    verdict(
        &Expect::ResolvedBy(vec![event]),
        &observed,
        &delivered,
        during,
        Some(&trace),
    )?;
    Violation::unless_failure_hidden(hidden, kit::Fault::Cancelled, during, &trace)
}
