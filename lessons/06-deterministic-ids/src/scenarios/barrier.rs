use super::{observe, order_created, prepare};
use crate::judge::verdict;
use crate::{DEFAULT_CARD, Handler, Subject, Violation};

/// Deliveries released in all the rounds of one barrier test, at the least: fewer workers play
/// more rounds. The window this lesson's race needs is wide (a request to the card network sits
/// between the check and the write), so far fewer rounds than lesson 01's catch it every run.
const DELIVERIES_RELEASED: usize = 64;

/// How many rounds a barrier test with `workers` workers plays.
pub fn barrier_rounds(workers: usize) -> usize {
    (DELIVERIES_RELEASED / workers.max(1)).max(4)
}

// ANCHOR: barrier
/// `workers` tasks wait at a barrier and are released together with the same order.created;
/// the customer must be charged once, and the saga told under one id. Repeated for
/// [`barrier_rounds`] rounds, a fresh order each; the first round that catches a violation ends
/// the test.
pub async fn barrier<H: Handler>(subject: Subject<H>, workers: usize) -> Result<(), Violation> {
    let rounds = kit::Rounds::new(workers, "the same order.created", barrier_rounds(workers));
    let (db, step) = prepare(&subject, rounds.set_up()).await?;
    let pool = rounds.pool(&db).await?;
    for during in rounds.each() {
        let order_id = format!("ord-{}", during.round());
        let order = order_created(&order_id, DEFAULT_CARD);
        let outcomes = kit::release_together(workers, |_| {
            subject.handler.call(pool.clone(), order.clone())
        })
        .await;
        let observed = observe(&step, &order_id, &[], during, None).await?;
        verdict(&observed, &outcomes, 0, during, None)?;
    }
    Ok(())
}
// ANCHOR_END: barrier
