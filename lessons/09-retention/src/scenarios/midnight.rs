use chrono::{TimeDelta, TimeZone, Utc};

use super::{credit, deliver, prepare};
use crate::judge::once;
use crate::{Delivery, Handler, Subject, Violation};

// ANCHOR: midnight
/// evt-1 arrives half a minute before midnight, and a copy a minute later, on the next day. No
/// prune runs: the table itself must recognise the copy, whichever day each copy arrives on.
pub async fn a_copy_after_midnight_is_recognised<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "evt-1 was delivered at 23:59:30 and a copy of it arrived a minute later, just after \
         midnight",
    );
    let (_db, ledger, pool) = prepare(&subject, 1, during).await?;
    let first = Utc.with_ymd_and_hms(2026, 3, 2, 23, 59, 30).unwrap();
    let event = credit("evt-1", first - TimeDelta::minutes(5));
    deliver(&pool, &event, first, during).await?;
    deliver(&pool, &event, first + TimeDelta::minutes(1), during).await?;
    once(&ledger, &event, None, during).await
}
// ANCHOR_END: midnight
