use super::{failed, with_reservations};
use crate::judge::verdict;
use crate::{Delivery, Handler, Subject, Violation};

// ANCHOR: replayed
/// The inventory's database is restored from a backup taken before ord-1's payment failed (or a
/// new instance starts from one), and the broker replays payment.failed from an earlier offset.
/// In the restored tables the reservation is held again, and releasing it again is right. But
/// the rest of the saga already heard stock.released under the id the relay published before
/// the restore: the replay's announcement must carry the same id, or downstream counts two
/// releases of one reservation.
pub async fn replayed_after_a_restore<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "payment.failed for ord-1 was delivered and the release announced; then the \
         inventory's database was restored from a backup taken before the payment failed, and \
         the event was delivered again",
    );
    let (db, inventory) = with_reservations(&subject, during, &["ord-1"]).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let first = subject.handler.call(pool.clone(), failed("ord-1")).await;
    // Nothing to judge of the first delivery but that it worked: the restore erases the rest.
    verdict(
        &(inventory.observe("ord-1", &[]).await).map_err(Violation::setup(during))?,
        &[first],
        during,
        None,
    )?;
    let published =
        (inventory.restore_from_backup("ord-1").await).map_err(Violation::setup(during))?;
    let replayed = subject.handler.call(pool.clone(), failed("ord-1")).await;
    let observed =
        (inventory.observe("ord-1", &published).await).map_err(Violation::setup(during))?;
    verdict(&observed, &[replayed], during, None)
}
// ANCHOR_END: replayed
