//! Lesson 04: a pending order is resolved once, whatever events race for it.
//!
//! Run the tests with `cargo test -p exercise-04-for-update`, and read chapter 4 of the book
//! (`mdbook serve book --open`). This file is yours to change. The effect itself
//! (`apply_to_order` and `enqueue`) is given, in lessons/order-saga/src/effect.rs: it changes
//! the order and announces it without asking whether it should, which is the guards' job.

use order_saga::{Outcome, PaymentEvent, apply_to_order, enqueue};
use sqlx::PgPool;

// ANCHOR: handler
/// Applies a payment result to its order once per event id, moves a pending order to a
/// terminal status at most once whatever events race for it, and announces that in the outbox.
pub async fn apply_payment_result(
    pool: &PgPool,
    event: &PaymentEvent,
) -> Result<Outcome, sqlx::Error> {
    // Every early return below either commits or drops `tx`, which rolls it back.
    let mut tx = pool.begin().await?;

    // Guard 1: the same event twice.
    let recorded =
        sqlx::query("INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING")
            .bind(event.id())
            .execute(&mut *tx)
            .await?;
    if recorded.rows_affected() == 0 {
        tx.commit().await?;
        return Ok(Outcome::AlreadyApplied);
    }

    // ANCHOR: guard_2
    // Guard 2: a different event for an order that is no longer pending.
    // TODO: two different events for one order can both read "pending" here, before either
    // commits, and both move the order. Make the second one wait for the first, and then read
    // the status the first one left.
    let status: String = sqlx::query_scalar("SELECT status FROM orders WHERE id = $1")
        .bind(event.order_id())
        .fetch_one(&mut *tx)
        .await?;
    if status != "pending" {
        // Resolved already: keep the record (this event is handled), leave the order alone.
        tx.commit().await?;
        return Ok(Outcome::OrderAlreadyResolved);
    }
    // ANCHOR_END: guard_2

    if let Some(order_event) = apply_to_order(&mut *tx, event).await? {
        enqueue(&mut *tx, &order_event).await?;
    }
    tx.commit().await?;
    Ok(Outcome::Applied)
}
// ANCHOR_END: handler
