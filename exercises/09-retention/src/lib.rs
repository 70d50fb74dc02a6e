//! Lesson 09: forget what no redelivery can need any more, and nothing sooner.
//!
//! Run the tests with `cargo test -p exercise-09-retention`, and read chapter 9 of the book
//! (`mdbook serve book --open`). Two files are yours to change: this one and
//! `migrations/0900_processed_events.sql`. The handler that fills processed_events is given, in
//! lessons/09-retention/src/credit.rs, and so are the window's constants, in
//! lessons/09-retention/src/clock.rs.

use retention::{Prune, Pruned};
use sqlx::PgPool;

/// "The table never holds more than this many ids."
const KEEP_NEWEST: i64 = 1_000;

// ANCHOR: prune
/// Removes from processed_events the rows no copy of their event can need any more, so that
/// the table stops growing, without ever forgetting an event a copy of which may still arrive.
pub async fn prune(pool: &PgPool, prune: &Prune) -> Result<Pruned, sqlx::Error> {
    // TODO: this keeps a number of rows, and the number says nothing about which events can
    // still be delivered again. Remove every row that no copy of its event can need any more,
    // and no other, and keep each of the prune's transactions short, however large the
    // backlog it finds.
    // "The newest ids are the ones that matter": no clock needed.
    let _ = prune;
    let deleted = sqlx::query(
        "DELETE FROM processed_events
          WHERE event_id NOT IN (SELECT event_id FROM processed_events
                                  ORDER BY received_at DESC LIMIT $1)",
    )
    .bind(KEEP_NEWEST)
    .execute(pool)
    .await?;
    Ok(Pruned {
        rows: deleted.rows_affected(),
    })
}
// ANCHOR_END: prune
