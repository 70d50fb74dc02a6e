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
    pool: &PgPool,
    partition: &Partition,
) -> Result<Option<i64>, sqlx::Error> {
    // The offset that committed with the effects is the only one that says what is handled.
    sqlx::query_scalar(
        "SELECT next_offset FROM partition_offsets
          WHERE group_id = $1 AND topic = $2 AND partition = $3",
    )
    .bind(&partition.group)
    .bind(&partition.topic)
    .bind(partition.partition)
    .fetch_optional(pool)
    .await
}
// ANCHOR_END: starting_offset

// ANCHOR: consume
/// Handles one batch of the partition, so that every verdict is handled exactly once even when
/// a consumer dies half-way or loses the partition to another.
pub async fn consume(pool: &PgPool, batch: &Batch) -> Result<Consumed, ConsumeError> {
    let partition = batch.partition();
    // ANCHOR: fence
    // One transaction for the batch and its offset. The offset row's lock makes consumers of
    // the partition take turns, and the fence makes a stale one stand down: a consumer that
    // lost the partition in a rebalance, and wakes up later with its old batch, finds the
    // offset moved on and applies nothing.
    let mut tx = pool.begin().await?;
    let stored: i64 = sqlx::query_scalar(
        "SELECT next_offset FROM partition_offsets
          WHERE group_id = $1 AND topic = $2 AND partition = $3 FOR UPDATE",
    )
    .bind(&partition.group)
    .bind(&partition.topic)
    .bind(partition.partition)
    .fetch_one(&mut *tx)
    .await?;
    if stored != batch.first_offset() {
        return Ok(Consumed::Fenced { stored });
    }
    // ANCHOR_END: fence
    for record in batch.records() {
        handle(&mut tx, &record.event).await?;
    }
    sqlx::query(
        "UPDATE partition_offsets SET next_offset = $4
          WHERE group_id = $1 AND topic = $2 AND partition = $3",
    )
    .bind(&partition.group)
    .bind(&partition.topic)
    .bind(partition.partition)
    .bind(batch.next_offset())
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Consumed::Applied)
}
// ANCHOR_END: consume
