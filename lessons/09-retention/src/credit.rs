//! What the ledger is given: a credit event, one delivery of it, and the handler that applies
//! it once. The handler is lesson 01's and 02's, correct: the lesson is about what happens to
//! its dedupe table afterwards.

use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// A credit to an account, as its producer published it. Every copy of one event carries the
/// same four fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credit {
    pub id: String,
    pub account: String,
    pub amount_cents: i64,
    /// When the producer says it happened: hours or days before this consumer receives it,
    /// when the consumer lags or a backlog is replayed.
    pub occurred_at: DateTime<Utc>,
}

/// One copy of a credit reaching the consumer, at `received_at` by the consumer's clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivered {
    pub event: Credit,
    pub received_at: DateTime<Utc>,
}

/// What a delivery did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Applied,
    /// `processed_events` remembered the event: this copy changed nothing.
    AlreadyApplied,
}

// ANCHOR: handle
/// Credits the event's amount once: the record in `processed_events` and the credit commit
/// together, and the insert's row count decides which copy is the first (lessons 01 to 03).
/// `ON CONFLICT DO NOTHING` names no columns, so it honours whatever unique key the table has:
/// the key decides what counts as "the same event".
pub async fn handle(pool: &PgPool, delivered: &Delivered) -> Result<Outcome, sqlx::Error> {
    let event = &delivered.event;
    let mut tx = pool.begin().await?;
    let recorded = sqlx::query(
        "INSERT INTO processed_events (event_id, occurred_on, received_on, received_at)
         VALUES ($1, ($2 AT TIME ZONE 'UTC')::date, ($3 AT TIME ZONE 'UTC')::date, $3)
         ON CONFLICT DO NOTHING",
    )
    .bind(&event.id)
    .bind(event.occurred_at)
    .bind(delivered.received_at)
    .execute(&mut *tx)
    .await?;
    if recorded.rows_affected() == 0 {
        tx.commit().await?;
        return Ok(Outcome::AlreadyApplied);
    }
    sqlx::query("UPDATE accounts SET balance_cents = balance_cents + $2 WHERE id = $1")
        .bind(&event.account)
        .bind(event.amount_cents)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO credits (event_id, account, amount_cents, received_at)
         VALUES ($1, $2, $3, $4)",
    )
    .bind(&event.id)
    .bind(&event.account)
    .bind(event.amount_cents)
    .bind(delivered.received_at)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Outcome::Applied)
}
// ANCHOR_END: handle
