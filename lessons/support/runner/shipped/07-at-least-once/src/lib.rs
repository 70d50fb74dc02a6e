//! Lesson 07: a consumer of the log.
//!
//! Run the tests with `cargo test -p exercise-07-at-least-once`, and read chapter 7 of the
//! book (`mdbook serve book --open`). This file is yours to change. `read_batch` and `handle`
//! are given, in lessons/07-at-least-once/src/consumer.rs: `handle` applies one verdict with
//! every guard of lessons 02 to 05, in whatever transaction it is given.

use at_least_once::{Poll, Polled, handle, read_batch};
use sqlx::PgPool;

/// The same consumer on a Kafka broker: `cargo workbook check 07 --kafka`.
#[cfg(feature = "kafka")]
pub mod kafka;

// ANCHOR: poll
/// Takes the group's next events from the log, handles each, and moves the group's offset past
/// them, so that every event is handled exactly once even when a consumer dies half-way.
pub async fn poll(pool: &PgPool, poll: &Poll) -> Result<Polled, sqlx::Error> {
    // Claim the batch: read it, and move the group's offset past it.
    let mut claim = pool.begin().await?;
    let next: i64 = sqlx::query_scalar(
        "SELECT next_position FROM consumer_offsets WHERE group_id = $1 FOR UPDATE",
    )
    .bind(poll.group())
    .fetch_one(&mut *claim)
    .await?;
    let batch = read_batch(&mut *claim, next, poll.max()).await?;
    if let Some(last) = batch.last() {
        sqlx::query("UPDATE consumer_offsets SET next_position = $2 WHERE group_id = $1")
            .bind(poll.group())
            .bind(last.position + 1)
            .execute(&mut *claim)
            .await?;
    }
    claim.commit().await?;

    // Then handle each event, in a transaction of its own.
    for logged in &batch {
        let mut tx = pool.begin().await?;
        handle(&mut tx, &logged.event).await?;
        tx.commit().await?;
    }
    Ok(Polled {
        handled: batch.len(),
    })
}
// ANCHOR_END: poll
