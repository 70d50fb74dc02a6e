use super::{drain, orders, prepare};
use crate::judge::verdict;
use crate::{Delivery, Handler, Subject, Violation};

// ANCHOR: sequential
/// The pipeline on a quiet day: three announcements committed one after another, a relay that
/// publishes them, a consumer that ships each. It passes against the broken pipeline too.
pub async fn relayed_and_consumed_once<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "three announcements were committed one after another, relayed, and consumed, and \
         nothing died",
    );
    let (db, world) = prepare(&subject, during).await?;
    (world.produce(&orders(3)).await).map_err(Violation::setup(during))?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let steps = drain(&subject, &world, &pool, during).await?;
    verdict(&world, &steps, during, None).await.map(drop)
}
// ANCHOR_END: sequential
