//! What a consumer of the log is given, so that the student's `poll` is about one thing: where
//! its transactions begin and end, and when the group's offset moves.
//!
//! - [`Poll`] and [`Polled`]: what one call of `poll` is asked, and what it reports;
//! - [`read_batch`]: the next events of the log, from a position on;
//! - [`handle`]: one event's effect on its order, with the guards of lessons 02 to 05.

use order_saga::{Outcome, PaymentEvent, apply_to_order, enqueue};
use sqlx::PgConnection;
use sqlx::postgres::PgExecutor;

/// One poll of the log by a consumer of `group`: at most `max` events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Poll {
    group: String,
    max: i64,
}

impl Poll {
    /// Panics on an empty group or a `max` below 1: the tests' own values.
    pub fn new(group: impl Into<String>, max: i64) -> Poll {
        let group = group.into();
        assert!(
            !group.trim().is_empty() && max >= 1,
            "a poll needs a group and max >= 1"
        );
        Poll { group, max }
    }

    /// The consumer group, whose row in `consumer_offsets` holds its committed offset.
    pub fn group(&self) -> &str {
        &self.group
    }

    /// The most events one poll may take.
    pub fn max(&self) -> i64 {
        self.max
    }
}

/// What one poll did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Polled {
    /// How many events of the log it took (duplicates included).
    pub handled: usize,
}

/// An event of the log, and where it sits.
#[derive(Debug, Clone)]
pub struct Logged {
    pub position: i64,
    pub event: PaymentEvent,
}

// ANCHOR: read_batch
/// The events of the log at `from` and after, in order, at most `max`. A row that is not a
/// payment verdict is an error (a poison message, which no retry will fix), not skipped.
pub async fn read_batch(
    conn: impl PgExecutor<'_>,
    from: i64,
    max: i64,
) -> Result<Vec<Logged>, sqlx::Error> {
    let rows: Vec<(i64, String)> = sqlx::query_as(
        "SELECT position, event FROM log WHERE position >= $1 ORDER BY position LIMIT $2",
    )
    .bind(from)
    .bind(max)
    .fetch_all(conn)
    .await?;
    rows.into_iter()
        .map(|(position, event)| {
            let event = PaymentEvent::from_json(&event)
                .map_err(|e| sqlx::Error::Decode(format!("log position {position}: {e}").into()))?;
            Ok(Logged { position, event })
        })
        .collect()
}
// ANCHOR_END: read_batch

// ANCHOR: handle
/// Applies one verdict to its order on `conn`, with every guard of lessons 02 to 05: its id is
/// recorded with `ON CONFLICT DO NOTHING` (a verdict the producer published twice is applied
/// once), the order is read under `FOR UPDATE` (a resolved order is left alone), and the order's
/// announcement goes to the outbox. It opens no transaction of its own: whatever transaction
/// `conn` is in, it commits or rolls back with it.
pub async fn handle(conn: &mut PgConnection, event: &PaymentEvent) -> Result<Outcome, sqlx::Error> {
    let recorded =
        sqlx::query("INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING")
            .bind(event.id())
            .execute(&mut *conn)
            .await?;
    if recorded.rows_affected() == 0 {
        return Ok(Outcome::AlreadyApplied);
    }
    let status: String = sqlx::query_scalar("SELECT status FROM orders WHERE id = $1 FOR UPDATE")
        .bind(event.order_id())
        .fetch_one(&mut *conn)
        .await?;
    if status != "pending" {
        return Ok(Outcome::OrderAlreadyResolved);
    }
    if let Some(order_event) = apply_to_order(&mut *conn, event).await? {
        enqueue(&mut *conn, &order_event).await?;
    }
    Ok(Outcome::Applied)
}
// ANCHOR_END: handle
