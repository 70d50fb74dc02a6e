//! Lesson 08: the outbox relay and the consumer's inbox.
//!
//! Run the tests with `cargo test -p exercise-08-outbox-relay`, and read chapter 8 of the book
//! (`mdbook serve book --open`). This file is yours to change. `publish` (the broker) and `ship`
//! (the warehouse's effect) are given, in lessons/08-outbox-relay/src/pipeline.rs.

use outbox_relay::{Done, Message, OutboxRow, Outcome, Relay, Step, publish, ship};
use sqlx::PgPool;

/// One step of the pipeline, as the tests and `cargo workbook deliver 08` drive it: nothing to
/// change here.
pub async fn run(pool: &PgPool, step: &Step) -> Result<Done, sqlx::Error> {
    match step {
        Step::Relay(pass) => relay(pool, pass).await.map(Done::Relayed),
        Step::Consume(message) => consume(pool, message).await.map(Done::Consumed),
    }
}

// ANCHOR: relay
/// One pass of the relay: publishes the outbox rows committed since its last pass, each at least
/// once, and returns how many it published.
pub async fn relay(pool: &PgPool, pass: &Relay) -> Result<usize, sqlx::Error> {
    let mut tx = pool.begin().await?;
    // ANCHOR: claim
    // Claim what is unsent, not what lies beyond a mark: a row that commits late, with a low
    // id, is still unsent, and found. SKIP LOCKED passes over the rows another relay has
    // claimed, so relays running at once split the outbox instead of waiting on each other.
    let rows: Vec<(i64, String, String)> = sqlx::query_as(
        "SELECT id, event_id, payload FROM outbox
          WHERE sent_at IS NULL
          ORDER BY id
          LIMIT $1
          FOR UPDATE SKIP LOCKED",
    )
    .bind(pass.max())
    .fetch_all(&mut *tx)
    .await?;
    // ANCHOR_END: claim
    let rows: Vec<OutboxRow> = rows.into_iter().map(OutboxRow::from).collect();
    // ANCHOR: publish_then_mark
    // Publish, then mark. A relay that dies in between leaves the rows unsent, and the next pass
    // publishes them again: at least once, which the consumer's inbox makes harmless. (Marking
    // first would make it at most once: a death after the mark's commit loses the rows.)
    for row in &rows {
        publish(pool, row).await?;
    }
    let ids: Vec<i64> = rows.iter().map(|row| row.id).collect();
    sqlx::query("UPDATE outbox SET sent_at = now() WHERE id = ANY($1)")
        .bind(&ids)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    // ANCHOR_END: publish_then_mark
    Ok(rows.len())
}
// ANCHOR_END: relay

// ANCHOR: consume
/// The warehouse's consumer: ships the order a message confirms, once per event.
pub async fn consume(pool: &PgPool, message: &Message) -> Result<Outcome, sqlx::Error> {
    let mut tx = pool.begin().await?;
    // The inbox: lesson 02's guard, keyed by the event's own id, which every copy of the event
    // carries (the outbox row's id would not do: a producer restored from a backup hands old
    // ids to new events). A copy handled before (republished, or redelivered) inserts nothing;
    // a concurrent copy waits for this transaction, then inserts nothing.
    let new = sqlx::query("INSERT INTO inbox (id) VALUES ($1) ON CONFLICT DO NOTHING")
        .bind(&message.event_id)
        .execute(&mut *tx)
        .await?;
    if new.rows_affected() == 0 {
        tx.commit().await?;
        return Ok(Outcome::AlreadyApplied);
    }
    // The shipment commits with its inbox row, or neither does.
    ship(&mut *tx, message).await?;
    tx.commit().await?;
    Ok(Outcome::Applied)
}
// ANCHOR_END: consume
