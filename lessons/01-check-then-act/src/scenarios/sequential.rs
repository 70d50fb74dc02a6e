use super::{credit_event, with_account};
use crate::judge::judge;
use crate::{Delivery, Handler, Subject, Violation};

// ANCHOR: sequential
/// The test almost everyone writes first: deliver the event, then deliver it again.
///
/// It passes against the broken handler too. The second delivery starts after the first has
/// committed, so the handler's check sees the first one's row; the race needs two deliveries
/// *inside* the window between check and write, and a sequential test never opens it.
pub async fn sequential_redelivery<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::OneAfterAnother { times: 2 };
    let (db, ledger) = with_account(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let event = credit_event("evt-1", "acc-1");

    let first = subject.handler.call(pool.clone(), event.clone()).await;
    let second = subject.handler.call(pool.clone(), event.clone()).await;

    let observed = ledger
        .observe("acc-1", &event)
        .await
        .map_err(Violation::setup(during))?;
    judge(observed, &[first, second], 0).map_err(Violation::caught(during, None))
}
// ANCHOR_END: sequential
