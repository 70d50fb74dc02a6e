//! Lesson 13: isolation levels, and retrying the whole transaction.
//!
//! A customer's cards share one credit limit. `authorize` approves an authorization when the
//! customer's cards together stay within it, and declines it otherwise. The rule reads rows the
//! authorization does not write (the other cards), so the transaction runs at SERIALIZABLE:
//! PostgreSQL then aborts, with 40001, any transaction that could not have run one after the
//! other with those it overlapped.
//!
//! Run `cargo test` in this folder (or `cargo workbook check 13`). The tests make the database
//! abort a delivery's transaction (at a statement, at COMMIT, and again and again), and judge
//! what `authorize` does next. Change `authorize` so that every test passes; `attempt` is
//! correct as it is. Chapter 13 explains why; `cargo workbook hint 13` gives staged hints.

use serializable_retry::{Authorization, Handled, Outcome};
use sqlx::PgPool;

// ANCHOR: authorize
/// One delivery of `event`: its transaction, run once.
pub async fn authorize(pool: &PgPool, event: &Authorization) -> Result<Handled, sqlx::Error> {
    match attempt(pool, event).await {
        Ok(outcome) => Ok(Handled {
            outcome,
            attempts: 1,
        }),
        // 23505 on the event's key: a copy of an event decided before (guard 1).
        Err(e) if code(&e).as_deref() == Some("23505") => Ok(Handled {
            outcome: Outcome::Duplicate,
            attempts: 1,
        }),
        Err(e) => Err(e),
    }
}
// ANCHOR_END: authorize

// ANCHOR: attempt
/// The whole transaction, once: the event's key, the customer's total, the decision.
async fn attempt(pool: &PgPool, event: &Authorization) -> Result<Outcome, sqlx::Error> {
    let mut tx = pool.begin().await?;
    // The rule reads the customer's other cards, which this transaction does not write: only
    // SERIALIZABLE makes PostgreSQL notice another approval that read and wrote the same rows.
    sqlx::query("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
        .execute(&mut *tx)
        .await?;
    // Guard 1: the event's key, in the decision's transaction.
    sqlx::query("INSERT INTO processed_events (event_id) VALUES ($1)")
        .bind(event.id())
        .execute(&mut *tx)
        .await?;
    let (spent, limit): (i64, i64) = sqlx::query_as(
        "SELECT coalesce(sum(cards.spent_cents), 0)::bigint, customers.limit_cents
           FROM customers LEFT JOIN cards ON cards.customer_id = customers.id
          WHERE customers.id = $1
          GROUP BY customers.limit_cents",
    )
    .bind(event.customer_id())
    .fetch_one(&mut *tx)
    .await?;
    let outcome = if spent + event.amount_cents() <= limit {
        sqlx::query("UPDATE cards SET spent_cents = spent_cents + $2 WHERE id = $1")
            .bind(event.card_id())
            .bind(event.amount_cents())
            .execute(&mut *tx)
            .await?;
        Outcome::Approved
    } else {
        Outcome::Declined
    };
    let decision = match outcome {
        Outcome::Approved => "approved",
        _ => "declined",
    };
    sqlx::query(
        "INSERT INTO authorizations (event_id, card_id, customer_id, amount_cents, decision)
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(event.id())
    .bind(event.card_id())
    .bind(event.customer_id())
    .bind(event.amount_cents())
    .bind(decision)
    .execute(&mut *tx)
    .await?;
    // Under SERIALIZABLE, COMMIT can fail too: it is where PostgreSQL makes its last check.
    tx.commit().await?;
    Ok(outcome)
}
// ANCHOR_END: attempt

/// The SQLSTATE of a database error, if `error` is one.
fn code(error: &sqlx::Error) -> Option<String> {
    Some(error.as_database_error()?.code()?.into_owned())
}
