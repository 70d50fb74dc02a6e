use kit::Script;

use super::{observe, order_created, prepare, shown};
use crate::judge::verdict;
use crate::{DEFAULT_CARD, Delivery, Handler, Subject, Violation};

/// Another instance of the step, half-way through recording ord-1's payment: its record is
/// written and not committed yet.
const RECORDING_ORD_1: &str = "BEGIN; INSERT INTO payments (id, order_id, charge_id) \
                               VALUES ('ord-1:payment', 'ord-1', 'ch_held')";

// ANCHOR: other_orders
/// While a delivery for ord-1 waits on another session's uncommitted record of ord-1's
/// payment, a delivery for ord-2 must go through without waiting: the key touches only the
/// payment it names. A handler that locks a whole table, or takes one advisory lock for every
/// order, still pays each order once, but one slow payment then holds up every order's.
pub async fn other_orders_do_not_wait<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "another session was recording ord-1's payment, order.created for ord-1 reached a \
         worker, and meanwhile order.created for ord-2 reached a second worker (a scripted \
         interleaving)",
    );
    let (db, step) = prepare(&subject, during).await?;
    let (this, other) = (
        order_created("ord-1", DEFAULT_CARD),
        order_created("ord-2", DEFAULT_CARD),
    );
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "recording", RECORDING_ORD_1)
        .sql("holder", "rollback", "ROLLBACK")
        .deliver("worker-1", "first", this.clone())
        .deliver("worker-2", "other", other.clone());
    // ANCHOR_END: other_orders
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "recording first other rollback",
        kit::describe_outcome,
        during,
    )
    .await?;
    let waited = ran.waited("worker-2");
    let mut judged = Vec::new();
    for ((_, outcome), order_id) in ran.outcomes.into_iter().zip(["ord-1", "ord-2"]) {
        let observed = observe(&step, order_id, &[], during, Some(&mut interleaving)).await?;
        judged.push((observed, outcome));
    }
    let trace = interleaving.trace().clone();
    for (observed, outcome) in judged {
        verdict(&observed, &[outcome], during, Some(&trace))?;
    }
    let held = "ord-1's uncommitted payment";
    Violation::unless_waited(waited, "ord-2", held, during, &trace)
}
