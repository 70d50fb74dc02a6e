use super::{observe, order_created, prepare};
use crate::judge::verdict;
use crate::{DEFAULT_CARD, Delivery, Handler, Subject, Violation};

// ANCHOR: replayed
/// The step's own database is restored from a backup taken before the order arrived (or a new
/// instance of the step starts from an empty one), and the broker replays order.created from
/// an earlier offset. The step's record and outbox are gone; the card network, another
/// company's system, still holds its charge, and the saga has already heard the payment under
/// the id the relay published.
///
/// Nothing local can recognise the replay, so only what the handler derives from the event
/// itself can: the network must see the same key, and the saga the same id.
pub async fn replayed_after_a_restore<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "order.created for ord-1 was delivered and its payment announced; then the step's \
         database was restored from a backup taken before the order arrived, and the order \
         was delivered again",
    );
    let (db, step) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let order = order_created("ord-1", DEFAULT_CARD);

    let first = subject.handler.call(pool.clone(), order.clone()).await;
    let published = (step.restore_from_backup("ord-1").await).map_err(Violation::setup(during))?;
    let replayed = subject.handler.call(pool.clone(), order.clone()).await;

    let observed = observe(&step, "ord-1", &published, during, None).await?;
    verdict(&observed, &[first, replayed], 0, during, None)
}
// ANCHOR_END: replayed
