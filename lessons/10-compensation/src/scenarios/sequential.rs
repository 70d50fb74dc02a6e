use super::{cancelled, failed, observe, succeeded, with_reservations};
use crate::judge::verdict;
use crate::{Delivery, Handler, Subject, Violation};

// ANCHOR: sequential
/// The test almost everyone writes first: deliver an event, then deliver it again, or deliver
/// a contradicting one, each after the one before has committed. ord-1's payment failed (and
/// the failure is redelivered), ord-2 was cancelled and then its payment failed, ord-3 was paid
/// and then a late payment.failed arrived.
///
/// It passes against the broken handler too: each delivery starts after the one before has
/// committed, so "still held?" reads the truth and the repeat stops there.
pub async fn redelivered_after_commit<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "payment.failed for ord-1 was delivered twice; order.cancelled then payment.failed for \
         ord-2; payment.succeeded then payment.failed for ord-3; one delivery after another",
    );
    let orders = ["ord-1", "ord-2", "ord-3"];
    let (db, inventory) = with_reservations(&subject, during, &orders).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let stories = [
        [failed("ord-1"), failed("ord-1")],
        [cancelled("ord-2"), failed("ord-2")],
        [succeeded("ord-3"), failed("ord-3")],
    ];
    for (order_id, events) in orders.into_iter().zip(stories) {
        let mut outcomes = Vec::new();
        for event in events {
            outcomes.push(subject.handler.call(pool.clone(), event).await);
        }
        let observed = observe(&inventory, order_id, during, None).await?;
        verdict(&observed, &outcomes, during, None)?;
    }
    Ok(())
}
// ANCHOR_END: sequential
