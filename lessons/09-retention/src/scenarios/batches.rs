use chrono::TimeDelta;

use super::{prepare, prune, t0};
use crate::judge::nothing_kept_too_long;
use crate::{BATCH_LIMIT, Delivery, Handler, Subject, Violation, ViolationKind};

/// The backlog: a prune that has not run for a while finds this many rows to remove.
const BACKLOG: i64 = 5_000;

// ANCHOR: batches
/// 5,000 rows, all received ten days ago, and one run of the prune: it must remove them all,
/// and no transaction of it may delete more than [`BATCH_LIMIT`] rows. A trigger the test
/// installs counts the rows each transaction deleted.
pub async fn the_backlog_is_pruned_in_bounded_batches<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "processed_events held 5,000 rows received ten days before, and the prune ran once",
    );
    let (_db, ledger, pool) = prepare(&subject, 1, during).await?;
    let setup = Violation::setup(during);
    ledger.audit().await.map_err(setup)?;
    (ledger
        .backlog("evt-old-", BACKLOG, t0() - TimeDelta::days(10))
        .await)
        .map_err(Violation::setup(during))?;
    prune(&subject, (&ledger, &pool), t0(), during).await?;
    nothing_kept_too_long(&ledger, t0(), during).await?;
    let (rows, transactions) =
        (ledger.largest_transaction().await).map_err(Violation::setup(during))?;
    if rows > BATCH_LIMIT {
        return Err(Violation {
            kind: ViolationKind::TooBigATransaction { rows, transactions },
            during,
            trace: None,
        });
    }
    Ok(())
}
// ANCHOR_END: batches
