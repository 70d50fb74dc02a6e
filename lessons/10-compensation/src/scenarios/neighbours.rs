use kit::Script;

use super::{failed, observe, shown, with_reservations};
use crate::judge::verdict;
use crate::{Delivery, Handler, Subject, Violation};

/// Another instance of the service, half-way through settling ord-1: it holds the reservation's
/// row lock and has committed nothing yet.
const SETTLING_ORD_1: &str =
    "BEGIN; SELECT 1 FROM reservations WHERE order_id = 'ord-1' FOR UPDATE";

// ANCHOR: other_orders
/// While a delivery for ord-1 waits on another session's lock on ord-1's reservation, a
/// release for ord-2 (another product, another reservation) must go through without waiting. A
/// handler that locks a whole table, or takes one advisory lock for every order, still settles
/// each reservation once, but one slow release then holds up every order's.
pub async fn other_orders_do_not_wait<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "another session was settling ord-1's reservation, payment.failed for ord-1 reached a \
         worker, and meanwhile payment.failed for ord-2 reached a second worker (a scripted \
         interleaving)",
    );
    let (db, inventory) = with_reservations(&subject, during, &["ord-1", "ord-2"]).await?;
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "settling", SETTLING_ORD_1)
        .sql("holder", "rollback", "ROLLBACK")
        .deliver("worker-1", "first", failed("ord-1"))
        .deliver("worker-2", "other", failed("ord-2"));
    // ANCHOR_END: other_orders
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "settling first other rollback",
        kit::describe_outcome,
        during,
    )
    .await?;
    let waited = ran.waited("worker-2");
    let mut judged = Vec::new();
    for ((_, outcome), order_id) in ran.outcomes.into_iter().zip(["ord-1", "ord-2"]) {
        let observed = observe(&inventory, order_id, during, Some(&mut interleaving)).await?;
        judged.push((observed, outcome));
    }
    let trace = interleaving.trace().clone();
    for (observed, outcome) in judged {
        verdict(&observed, &[outcome], during, Some(&trace))?;
    }
    Violation::unless_waited(waited, "ord-2", "ord-1's reservation", during, &trace)
}
