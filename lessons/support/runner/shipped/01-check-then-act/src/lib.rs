//! Lesson 01: credit an account once per event, however many workers receive it.
//!
//! Run the tests with `cargo test -p exercise-01-check-then-act`, and read chapter 1 of the book
//! (`mdbook serve book --open`). Two files are yours to change: this one and
//! `migrations/0100_processed_events_key.sql`.

use check_then_act::{CreditEvent, Outcome};
use sqlx::PgPool;

// ANCHOR: handler
/// Credits the event's amount to its account, once per event id, however many times (and
/// however many workers at once) the event is delivered.
pub async fn apply_credit(pool: &PgPool, event: &CreditEvent) -> Result<Outcome, sqlx::Error> {
    // TODO: this check and the write below are two separate steps, and another worker can land
    // between them. Make the database decide which delivery is the first, and report a
    // delivery that lost as Outcome::AlreadyApplied, not as an error.
    let seen: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM processed_events WHERE event_id = $1)")
            .bind(event.id())
            .fetch_one(pool)
            .await?;
    if seen {
        return Ok(Outcome::AlreadyApplied);
    }

    let mut tx = pool.begin().await?;
    credit(&mut tx, event).await?;
    sqlx::query("INSERT INTO processed_events (event_id) VALUES ($1)")
        .bind(event.id())
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Outcome::Applied)
}
// ANCHOR_END: handler

/// The effect. An event for an unknown account is an error, so that the transaction rolls back
/// and the event is not recorded as applied when nothing was credited.
async fn credit(tx: &mut sqlx::PgConnection, event: &CreditEvent) -> Result<(), sqlx::Error> {
    let credited =
        sqlx::query("UPDATE accounts SET balance_cents = balance_cents + $2 WHERE id = $1")
            .bind(event.account())
            .bind(event.amount_cents())
            .execute(tx)
            .await?;
    if credited.rows_affected() == 0 {
        return Err(sqlx::Error::RowNotFound);
    }
    Ok(())
}
