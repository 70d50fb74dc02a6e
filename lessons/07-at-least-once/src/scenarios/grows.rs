use super::{MAX, catch_up, order_ids, prepare};
use crate::judge::verdict;
use crate::log::{AMOUNT_CENTS, Verdict};
use crate::{Delivery, Handler, Poll, Subject, Violation};

// ANCHOR: grows
/// The log grows while the consumer reads it, as a live log does: a poll that asks for four
/// events finds two, and the producer appends a third afterwards. The offset must point just
/// after what the poll took, not after what it asked for.
pub async fn the_log_grows_between_polls<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "a consumer polled for four events and found two; then the producer appended a third, \
         and the consumer polled until it had caught up",
    );
    let orders = order_ids(3);
    let (db, log) = prepare(&subject, during, &orders).await?;
    let first = [
        Verdict::paid("pay-1", "ord-1", AMOUNT_CENTS),
        Verdict::paid("pay-2", "ord-2", AMOUNT_CENTS),
    ];
    let later = Verdict::paid("pay-3", "ord-3", AMOUNT_CENTS);
    (log.append(&first).await).map_err(Violation::setup(during))?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let mut polls = vec![
        subject
            .handler
            .call(pool.clone(), Poll::new("saga", MAX))
            .await,
    ];
    (log.append(std::slice::from_ref(&later)).await).map_err(Violation::setup(during))?;
    polls.extend(catch_up(&subject, &pool, MAX).await.0);
    let appended = [first[0].clone(), first[1].clone(), later];
    verdict(&log, &orders, &appended, &polls, true, during, None)
        .await
        .map(drop)
}
// ANCHOR_END: grows
