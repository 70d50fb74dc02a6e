use super::{observe, order_created, prepare};
use crate::judge::verdict;
use crate::{DECLINED_CARD, DEFAULT_CARD, Delivery, Handler, Subject, Violation};

// ANCHOR: sequential
/// The test almost everyone writes first: deliver the order, then deliver it again, for a card
/// that pays and for one the network declines.
///
/// It passes against the broken handler too: the second delivery starts after the first has
/// committed its record, so the handler's check finds it and stops before charging.
pub async fn redelivered_after_commit<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "order.created for ord-1 (a card that pays) and for ord-2 (a card the network \
         declines) was each delivered twice, one delivery after another",
    );
    let (db, step) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    for (order_id, card) in [("ord-1", DEFAULT_CARD), ("ord-2", DECLINED_CARD)] {
        let order = order_created(order_id, card);
        let first = subject.handler.call(pool.clone(), order.clone()).await;
        let second = subject.handler.call(pool.clone(), order.clone()).await;
        let observed = observe(&step, order_id, &[], during, None).await?;
        verdict(&observed, &[first, second], 0, during, None)?;
    }
    Ok(())
}
// ANCHOR_END: sequential
