use super::{cancelled, failed, observe, succeeded, with_reservations};
use crate::inventory::Inventory;
use crate::judge::verdict;
use crate::{Delivery, Handler, ReservationEvent, Subject, Violation};

/// Rounds per barrier test, at the least. One round catches check-then-act only sometimes (how
/// often depends on the scheduler and the machine's load); many rounds, each a fresh order and
/// reservation, make a pass against the broken handler vanishingly unlikely. The race window is
/// lesson 04's (a status read without a lock, then a transaction), so are the numbers: `cargo
/// workbook repeat 10` measures them on this lesson.
pub const BARRIER_ROUNDS: usize = 60;

/// Deliveries released in all the rounds of one barrier test, at the least: two workers overlap
/// far less often than thirty-two, so fewer workers play more rounds.
const DELIVERIES_RELEASED: usize = 480;

/// How many rounds a barrier test with `workers` workers plays.
pub fn barrier_rounds(workers: usize) -> usize {
    BARRIER_ROUNDS.max(DELIVERIES_RELEASED / workers.max(1))
}

/// What worker `i` of a round delivers: payment.failed, order.cancelled, payment.failed again
/// (a redelivery), payment.succeeded, and round again. Two workers race the two reasons to
/// release; from four on, every kind of race is in every round.
fn event_for(worker: usize, order_id: &str) -> ReservationEvent {
    match worker % 4 {
        0 | 2 => failed(order_id),
        1 => cancelled(order_id),
        _ => succeeded(order_id),
    }
}

/// What each worker of a round is handed, as a message tells it.
const CARRYING: &str = "an event for the same held reservation: payment.failed, \
                        order.cancelled and payment.succeeded, some of them more than once";

// ANCHOR: barrier
/// `workers` tasks wait at a barrier and are released together, each with an event for the
/// same held reservation; it must be settled once, by one of them. Repeated for
/// [`barrier_rounds`] rounds, a fresh order each; the first round that catches a violation ends
/// the test.
pub async fn barrier<H: Handler>(subject: Subject<H>, workers: usize) -> Result<(), Violation> {
    let rounds = kit::Rounds::new(workers, CARRYING, barrier_rounds(workers));
    let (db, inventory) = with_reservations(&subject, rounds.set_up(), &[]).await?;
    let pool = rounds.pool(&db).await?;
    for during in rounds.each() {
        let order_id = format!("ord-{}", during.round());
        reserve(&inventory, &order_id, during).await?;
        let outcomes = kit::release_together(workers, |i| {
            subject.handler.call(pool.clone(), event_for(i, &order_id))
        })
        .await;
        let observed = observe(&inventory, &order_id, during, None).await?;
        verdict(&observed, &outcomes, during, None)?;
    }
    Ok(())
}
// ANCHOR_END: barrier

async fn reserve(inventory: &Inventory, order_id: &str, during: Delivery) -> Result<(), Violation> {
    (inventory.reserve(order_id, super::QUANTITY).await).map_err(Violation::setup(during))
}
