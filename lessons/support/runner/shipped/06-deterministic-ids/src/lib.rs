//! Lesson 06: the payment step, and the ids it hands on.
//!
//! Run the tests with `cargo test -p exercise-06-deterministic-ids`, and read chapter 6 of the
//! book (`mdbook serve book --open`). This file is yours to change. The card network
//! (`charge_card`) and the outbox (`announce`) are given, in
//! lessons/06-deterministic-ids/src/network.rs: they do what they are told with the ids they are
//! handed, which is this handler's job to get right.

use deterministic_ids::{OrderCreated, Outcome, announce, charge_card};
use sqlx::PgPool;

// ANCHOR: handler
/// Takes the payment for a new order: charges the customer's card once, and tells the saga how
/// it went, however many times the order.created is delivered.
pub async fn take_payment(pool: &PgPool, order: &OrderCreated) -> Result<Outcome, sqlx::Error> {
    // Charged already? Then this delivery is a repeat.
    let charged: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM payments WHERE order_id = $1)")
            .bind(order.order_id())
            .fetch_one(pool)
            .await?;
    if charged {
        return Ok(Outcome::AlreadyApplied);
    }

    // A fresh id for this attempt: the network's idempotency key, and the id the saga hears.
    let payment_id: String = sqlx::query_scalar("SELECT gen_random_uuid()::text")
        .fetch_one(pool)
        .await?;
    let charge = charge_card(pool, &payment_id, order).await?;

    let mut tx = pool.begin().await?;
    sqlx::query("INSERT INTO payments (id, order_id, charge_id) VALUES ($1, $2, $3)")
        .bind(&payment_id)
        .bind(order.order_id())
        .bind(charge.id())
        .execute(&mut *tx)
        .await?;
    announce(&mut *tx, &payment_id, order, &charge).await?;
    tx.commit().await?;
    Ok(Outcome::Applied)
}
// ANCHOR_END: handler
