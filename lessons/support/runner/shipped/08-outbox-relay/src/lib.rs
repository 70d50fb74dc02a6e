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
    // How far this relay got: the highest outbox id it has published.
    let last: i64 =
        sqlx::query_scalar("SELECT last_id FROM relay_progress WHERE relay = $1 FOR UPDATE")
            .bind(pass.name())
            .fetch_one(&mut *tx)
            .await?;
    let rows: Vec<(i64, String, String)> = sqlx::query_as(
        "SELECT id, event_id, payload FROM outbox WHERE id > $1 ORDER BY id LIMIT $2",
    )
    .bind(last)
    .bind(pass.max())
    .fetch_all(&mut *tx)
    .await?;
    let rows: Vec<OutboxRow> = rows.into_iter().map(OutboxRow::from).collect();
    for row in &rows {
        publish(pool, row).await?;
    }
    if let Some(newest) = rows.last() {
        sqlx::query("UPDATE relay_progress SET last_id = $2 WHERE relay = $1")
            .bind(pass.name())
            .bind(newest.id)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(rows.len())
}
// ANCHOR_END: relay

// ANCHOR: consume
/// The warehouse's consumer: ships the order a message confirms, once per event.
pub async fn consume(pool: &PgPool, message: &Message) -> Result<Outcome, sqlx::Error> {
    let mut tx = pool.begin().await?;
    ship(&mut *tx, message).await?;
    tx.commit().await?;
    Ok(Outcome::Applied)
}
// ANCHOR_END: consume
