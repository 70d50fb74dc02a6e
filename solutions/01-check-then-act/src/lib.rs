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
    // An optimisation, not a guard: a redelivery that arrives after the first delivery
    // committed skips the transaction. Two concurrent deliveries both pass it; the key decides.
    let seen: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM processed_events WHERE event_id = $1)")
            .bind(event.id())
            .fetch_one(pool)
            .await?;
    if seen {
        return Ok(Outcome::AlreadyApplied);
    }

    // Every early return below drops `tx` uncommitted, which rolls it back.
    let mut tx = pool.begin().await?;
    // ANCHOR: record
    // The decision. A concurrent delivery's insert of the same id waits here until this
    // transaction ends, then fails with a unique violation if it committed.
    let recorded = sqlx::query("INSERT INTO processed_events (event_id) VALUES ($1)")
        .bind(event.id())
        .execute(&mut *tx)
        .await;
    match recorded {
        Err(e) if is_unique_violation(&e) => return Ok(Outcome::AlreadyApplied),
        recorded => recorded?,
    };
    // ANCHOR_END: record
    // In the same transaction as the record: both commit, or neither does.
    credit(&mut tx, event).await?;
    tx.commit().await?;
    Ok(Outcome::Applied)
}
// ANCHOR_END: handler

/// Losing the race on the key is not a failure; any other error still is.
fn is_unique_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|error| error.is_unique_violation())
}

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
