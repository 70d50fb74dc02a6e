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
    // ANCHOR: derived_id
    // Derived from the order, never drawn: every delivery of this order, and every replay of
    // it, names the same payment. The suffix keeps it apart from the order's other steps.
    let payment_id = format!("{}:payment", order.order_id());
    // ANCHOR_END: derived_id

    // ANCHOR: charge
    // The network deduplicates on the key: a repeat of this request, from a delivery that died
    // after charging or one racing this one, gets the first charge back and charges nothing.
    let charge = charge_card(pool, &payment_id, order).await?;
    // ANCHOR_END: charge

    // ANCHOR: record
    // The record decides who announces: of the deliveries that reach this insert, one writes
    // the row (a concurrent one waits for its commit, then finds it), and only that one
    // announces. The announcement commits with the record, or neither does.
    let mut tx = pool.begin().await?;
    let recorded = sqlx::query(
        "INSERT INTO payments (id, order_id, charge_id) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO NOTHING",
    )
    .bind(&payment_id)
    .bind(order.order_id())
    .bind(charge.id())
    .execute(&mut *tx)
    .await?;
    if recorded.rows_affected() == 0 {
        tx.commit().await?;
        return Ok(Outcome::AlreadyApplied);
    }
    announce(&mut *tx, &payment_id, order, &charge).await?;
    tx.commit().await?;
    // ANCHOR_END: record
    Ok(Outcome::Applied)
}
// ANCHOR_END: handler
