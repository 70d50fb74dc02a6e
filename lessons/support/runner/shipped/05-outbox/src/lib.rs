//! Lesson 05: announce exactly what commits: a transactional outbox.
//!
//! Run the tests with `cargo test -p exercise-05-outbox`, and read chapter 5 of the book
//! (`mdbook serve book --open`). This file is yours to change. The effect itself
//! (`apply_to_order` and `enqueue`) is given, in lessons/order-saga/src/effect.rs: it changes
//! the order and announces it without asking whether it should, which is the guards' job.

use order_saga::{Outcome, PaymentEvent, apply_to_order, enqueue};
use sqlx::PgPool;

// ANCHOR: handler
/// Applies a payment result to its order once per event id, moves a pending order to a
/// terminal status at most once, and announces exactly the statuses it commits, even when a
/// delivery dies halfway and the event is delivered again.
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

    // Guard 2: a different event for an order that is no longer pending, read under a lock.
    let status: String = sqlx::query_scalar("SELECT status FROM orders WHERE id = $1 FOR UPDATE")
        .bind(event.order_id())
        .fetch_one(&mut *tx)
        .await?;
    if status != "pending" {
        tx.commit().await?;
        return Ok(Outcome::OrderAlreadyResolved);
    }

    let order_event = apply_to_order(&mut *tx, event).await?;
    tx.commit().await?;
    // Announce the new status only once it has committed.
    // TODO: between the commit above and this insert, the order is resolved and nobody is told.
    // If this worker dies there, the redelivery finds the event recorded and skips it, so the
    // announcement never happens. Make it part of the transaction.
    if let Some(order_event) = order_event {
        enqueue(pool, &order_event).await?;
    }
    Ok(Outcome::Applied)
}
// ANCHOR_END: handler
