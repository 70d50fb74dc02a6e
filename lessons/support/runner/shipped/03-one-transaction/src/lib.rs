//! Lesson 03: the record and the effect commit together.
//!
//! Run the tests with `cargo test -p exercise-03-one-transaction`, and read chapter 3 of the book
//! (`mdbook serve book --open`). This file is yours to change. The effect itself
//! (`apply_to_order` and `enqueue`) is given, in lessons/order-saga/src/effect.rs: it changes
//! the order and announces it without asking whether it should, which is the guards' job.

use order_saga::{Outcome, PaymentEvent, apply_to_order, enqueue};
use sqlx::PgPool;

// ANCHOR: handler
/// Applies a payment result to its order once per event id, and announces the order's new
/// status in the outbox, even when a delivery dies halfway and the event is delivered again.
pub async fn apply_payment_result(
    pool: &PgPool,
    event: &PaymentEvent,
) -> Result<Outcome, sqlx::Error> {
    // Claim the event first, so that every other worker skips it straight away.
    // TODO: this runs on the pool, outside the transaction below, so the claim commits on its
    // own. If this worker dies before the commit below, the event stays claimed and is never
    // applied. Make the claim and the change one transaction.
    let claimed =
        sqlx::query("INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING")
            .bind(event.id())
            .execute(pool)
            .await?;
    if claimed.rows_affected() == 0 {
        return Ok(Outcome::AlreadyApplied);
    }

    let mut tx = pool.begin().await?;
    if let Some(order_event) = apply_to_order(&mut *tx, event).await? {
        enqueue(&mut *tx, &order_event).await?;
    }
    tx.commit().await?;
    Ok(Outcome::Applied)
}
// ANCHOR_END: handler
