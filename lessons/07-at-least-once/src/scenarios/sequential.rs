use super::{MAX, catch_up, order_ids, prepare};
use crate::judge::verdict;
use crate::log::{AMOUNT_CENTS, Verdict};
use crate::{Delivery, Handler, Subject, Violation};

// ANCHOR: consumed_once
/// One consumer reads a log with everything at-least-once delivery puts in it, and nothing
/// dies: instalments, a verdict the producer published twice, and verdicts that contradict an
/// order already resolved. It passes against the broken consumer too: without a crash, the
/// order of the offset and the effects makes no difference.
pub async fn consumed_once<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "one consumer polled a log of seven verdicts (instalments, one published twice, and \
         late contradicting ones) until it had caught up, and nothing died",
    );
    let orders = order_ids(3);
    let (db, log) = prepare(&subject, during, &orders).await?;
    let appended = [
        Verdict::paid("pay-1a", "ord-1", 1000),
        Verdict::paid("pay-2", "ord-2", AMOUNT_CENTS),
        Verdict::paid("pay-1a", "ord-1", 1000),
        Verdict::failed("fail-2", "ord-2"),
        Verdict::paid("pay-1b", "ord-1", 2000),
        Verdict::failed("fail-3", "ord-3"),
        Verdict::paid("pay-3", "ord-3", AMOUNT_CENTS),
    ];
    (log.append(&appended).await).map_err(Violation::setup(during))?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let (polls, _) = catch_up(&subject, &pool, MAX).await;
    verdict(&log, &orders, &appended, &polls, true, during, None)
        .await
        .map(drop)
}
// ANCHOR_END: consumed_once
