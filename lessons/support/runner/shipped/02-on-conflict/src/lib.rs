//! Lesson 02: apply a payment result to its order once, however many workers receive it.
//!
//! Run the tests with `cargo test -p exercise-02-on-conflict`, and read chapter 2 of the book
//! (`mdbook serve book --open`). This file is yours to change. The effect itself
//! (`apply_to_order` and `enqueue`) is given, in lessons/order-saga/src/effect.rs: it changes
//! the order and announces it without asking whether it should, which is the guards' job.

use order_saga::{Outcome, PaymentEvent, apply_to_order, enqueue};
use sqlx::PgPool;

// ANCHOR: handler
/// Applies a payment result to its order once per event id, however many times (and however
/// many workers at once) it is delivered, and announces the order's new status in the outbox.
pub async fn apply_payment_result(
    pool: &PgPool,
    event: &PaymentEvent,
) -> Result<Outcome, sqlx::Error> {
    // Skip an event that was handled before.
    let seen: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM processed_events WHERE event_id = $1)")
            .bind(event.id())
            .fetch_one(pool)
            .await?;
    if seen {
        return Ok(Outcome::AlreadyApplied);
    }

    let mut tx = pool.begin().await?;
    // TODO: two deliveries can both pass the check above before either commits. This insert
    // knows which of them got here first, and nobody asks it. Let its answer decide.
    sqlx::query("INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING")
        .bind(event.id())
        .execute(&mut *tx)
        .await?;
    if let Some(order_event) = apply_to_order(&mut *tx, event).await? {
        enqueue(&mut *tx, &order_event).await?;
    }
    tx.commit().await?;
    Ok(Outcome::Applied)
}
// ANCHOR_END: handler
