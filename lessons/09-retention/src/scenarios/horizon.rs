//! How long a row is needed: until the redelivery window has passed since the event was
//! received, by the consumer's clock, and not a moment less; and no longer than the retention
//! limit.

use chrono::TimeDelta;

use super::{copy_after_a_prune, credit, deliver, prepare, prune, t0};
use crate::judge::nothing_kept_too_long;
use crate::{Delivery, Handler, REDELIVERY_WINDOW, RETENTION_LIMIT, Subject, Violation};

/// Events handled after evt-1, a second apart: more than any "keep the newest N" keeps.
const BUSY_EVENTS: i64 = 1_200;

// ANCHOR: end_of_the_window
/// evt-1 is delivered, then a busy hour of other events; the prune runs at the very end of the
/// redelivery window, and a copy of evt-1 arrives at that same moment, as the broker's promise
/// allows. The copy must find evt-1's row.
pub async fn a_copy_at_the_end_of_the_window_is_recognised<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "evt-1 was delivered, then 1,200 other events; the prune ran exactly when evt-1's \
         redelivery window closed, and a copy of evt-1 arrived at that moment",
    );
    let (_db, ledger, pool) = prepare(&subject, 1, during).await?;
    let event = credit("evt-1", t0());
    deliver(&pool, &event, t0(), during).await?;
    ledger
        .backlog("evt-busy-", BUSY_EVENTS, t0())
        .await
        .map_err(crate::Violation::setup(during))?;
    let end = t0() + REDELIVERY_WINDOW;
    copy_after_a_prune(&subject, (&ledger, &pool), &event, [t0(), end, end], during).await
}
// ANCHOR_END: end_of_the_window

// ANCHOR: late_event
/// evt-1 happened ten days before the consumer received it (it lagged, or replayed a backlog).
/// The prune runs an hour after the delivery, and a copy arrives then: the window counts from
/// when the consumer received the event, not from when it happened.
pub async fn a_late_event_is_kept_for_the_window<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "evt-1, which had happened ten days before, was delivered; the prune ran an hour \
         later, and a copy of evt-1 arrived then",
    );
    let (_db, ledger, pool) = prepare(&subject, 1, during).await?;
    let event = credit("evt-1", t0() - TimeDelta::days(10));
    deliver(&pool, &event, t0(), during).await?;
    let later = t0() + TimeDelta::hours(1);
    copy_after_a_prune(
        &subject,
        (&ledger, &pool),
        &event,
        [t0(), later, later],
        during,
    )
    .await
}
// ANCHOR_END: late_event

// ANCHOR: retention_limit
/// Events delivered over two days; the prune runs four days and two hours after the first.
/// Rows past the retention limit must be gone, and the one still inside the window kept (a copy
/// of it arrives then, and must change nothing).
pub async fn rows_past_the_retention_limit_are_removed<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "evt-1 and evt-2 were delivered an hour apart and evt-3 two days later; the prune \
         ran four days and two hours after evt-1, and a copy of evt-3 arrived then",
    );
    let (_db, ledger, pool) = prepare(&subject, 1, during).await?;
    let received = [t0(), t0() + TimeDelta::hours(1), t0() + TimeDelta::days(2)];
    let events = [
        credit("evt-1", received[0]),
        credit("evt-2", received[1]),
        credit("evt-3", received[2]),
    ];
    for (event, at) in events.iter().zip(received) {
        deliver(&pool, event, at, during).await?;
    }
    let now = t0() + RETENTION_LIMIT + TimeDelta::hours(2);
    copy_after_a_prune(
        &subject,
        (&ledger, &pool),
        &events[2],
        [received[2], now, now],
        during,
    )
    .await?;
    nothing_kept_too_long(&ledger, now, during).await?;
    // And a second run finds nothing more to do, and does no harm.
    prune(&subject, (&ledger, &pool), now, during).await?;
    nothing_kept_too_long(&ledger, now, during).await
}
// ANCHOR_END: retention_limit
