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
    // ANCHOR: one_transaction
    // One transaction for the batch: the offset moves if and only if every effect it covers
    // commits. A consumer that dies anywhere in here leaves the offset where it was, and the
    // group's next poll takes the same events again, from a clean slate.
    let mut tx = pool.begin().await?;
    // The offset row's lock makes the group's consumers take turns: a second one waits here,
    // then reads the offset the first committed.
    let next: i64 = sqlx::query_scalar(
        "SELECT next_position FROM consumer_offsets WHERE group_id = $1 FOR UPDATE",
    )
    .bind(poll.group())
    .fetch_one(&mut *tx)
    .await?;
    let batch = read_batch(&mut *tx, next, poll.max()).await?;
    for logged in &batch {
        handle(&mut tx, &logged.event).await?;
    }
    // Just after the last event taken, however many were asked for.
    if let Some(last) = batch.last() {
        sqlx::query("UPDATE consumer_offsets SET next_position = $2 WHERE group_id = $1")
            .bind(poll.group())
            .bind(last.position + 1)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    // ANCHOR_END: one_transaction
    Ok(Polled {
        handled: batch.len(),
    })
}
// ANCHOR_END: poll
