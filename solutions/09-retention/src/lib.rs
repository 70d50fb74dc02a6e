//! Lesson 09: forget what no redelivery can need any more, and nothing sooner.
//!
//! Run the tests with `cargo test -p exercise-09-retention`, and read chapter 9 of the book
//! (`mdbook serve book --open`). Two files are yours to change: this one and
//! `migrations/0900_processed_events.sql`. The handler that fills processed_events is given, in
//! lessons/09-retention/src/credit.rs, and so are the window's constants, in
//! lessons/09-retention/src/clock.rs.

use retention::{BATCH_LIMIT, Prune, Pruned, REDELIVERY_WINDOW};
use sqlx::PgPool;

// ANCHOR: prune
/// Removes from processed_events the rows no copy of their event can need any more, so that
/// the table stops growing, without ever forgetting an event a copy of which may still arrive.
pub async fn prune(pool: &PgPool, prune: &Prune) -> Result<Pruned, sqlx::Error> {
    // A copy may arrive until the window has passed since the event was received, that moment
    // included: a row received exactly at the horizon is still needed. The clock is the
    // consumer's (received_at), never the event's own occurred_at, which a lagging consumer
    // or a replayed backlog puts days in the past.
    let horizon = prune.now() - REDELIVERY_WINDOW;
    let mut rows = 0;
    loop {
        // One bounded batch per statement, and so per transaction: each commits in
        // milliseconds, holds its row locks only that long, and a prune stopped half-way keeps
        // the batches it committed. Deliveries record new events, which no batch touches.
        // ARRAY(…) picks the batch once, and each partition's key index finds its rows; an
        // `IN (SELECT …)` is planned as a join, which scans the whole backlog for every batch.
        let batch = sqlx::query(
            "DELETE FROM processed_events
              WHERE event_id = ANY (ARRAY(SELECT event_id FROM processed_events
                                           WHERE received_at < $1 LIMIT $2))
                AND received_at < $1",
        )
        .bind(horizon)
        .bind(BATCH_LIMIT)
        .execute(pool)
        .await?;
        if batch.rows_affected() == 0 {
            return Ok(Pruned { rows });
        }
        rows += batch.rows_affected();
    }
}
// ANCHOR_END: prune
