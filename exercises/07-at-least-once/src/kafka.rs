//! Lesson 07 on a Kafka broker: the same verdicts, read from a partition of a topic by a member
//! of a consumer group. Run the tests with `cargo workbook check 07 --kafka`, and read "On a
//! Kafka broker" in chapter 7. This file is yours to change.

use at_least_once::handle;
use at_least_once::kafka::{Batch, ConsumeError, Consumed, Partition};
use sqlx::PgPool;

// ANCHOR: starting_offset
/// Where this consumer starts reading the partition, which the group has just assigned to it.
/// `None` leaves it to the broker: the offset the group last committed there.
pub async fn starting_offset(
    _pool: &PgPool,
    _partition: &Partition,
) -> Result<Option<i64>, sqlx::Error> {
    Ok(None)
}
// ANCHOR_END: starting_offset

// ANCHOR: consume
/// Handles one batch of the partition, so that every verdict is handled exactly once even when
/// a consumer dies half-way or loses the partition to another.
pub async fn consume(pool: &PgPool, batch: &Batch) -> Result<Consumed, ConsumeError> {
    // Tell the broker the batch is taken, as a loop that calls commitSync() right after poll().
    batch.commit_to_broker().await?;
    // Then handle each verdict, in a transaction of its own.
    for record in batch.records() {
        let mut tx = pool.begin().await?;
        handle(&mut tx, &record.event).await?;
        tx.commit().await?;
    }
    Ok(Consumed::Applied)
}
// ANCHOR_END: consume
