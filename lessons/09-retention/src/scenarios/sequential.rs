use chrono::TimeDelta;

use super::{copy_after_a_prune, credit, deliver, prepare, t0};
use crate::{Delivery, Handler, Subject, Violation};

// ANCHOR: sequential
/// A credit is delivered, the prune runs an hour later, and a copy arrives an hour after that:
/// the copy changes nothing. Passes against the shipped exercise too: nothing in this story
/// tempts a prune to forget an hour-old row.
pub async fn a_copy_after_a_prune_is_recognised<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "evt-1 was delivered, the prune ran an hour later, and a copy of evt-1 arrived an hour \
         after that",
    );
    let (_db, ledger, pool) = prepare(&subject, 1, during).await?;
    let event = credit("evt-1", t0());
    let times = [t0(), t0() + TimeDelta::hours(1), t0() + TimeDelta::hours(2)];
    deliver(&pool, &event, times[0], during).await?;
    copy_after_a_prune(&subject, (&ledger, &pool), &event, times, during).await
}
// ANCHOR_END: sequential
