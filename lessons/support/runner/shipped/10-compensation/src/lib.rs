//! Lesson 10: the inventory service, and the compensation it owes a failed order.
//!
//! Run the tests with `cargo test -p exercise-10-compensation`, and read chapter 10 of the book
//! (`mdbook serve book --open`). This file is yours to change. The tables are in
//! migrations/compensation: a reservation is 'held' until one event settles it for good.

use compensation::{Outcome, ReservationEvent};
use sqlx::PgPool;

// ANCHOR: handler
/// Settles the order's stock reservation: payment.failed and order.cancelled release it (its
/// units go back on the shelf, and stock.released is announced), payment.succeeded consumes
/// it. Once, by the first event that reaches it, however many times each is delivered. A
/// release may arrive before the reservation does (`compensation::reserve`, which the service
/// runs when it hears order.created): the order's units must then never be held.
pub async fn settle_reservation(
    pool: &PgPool,
    event: &ReservationEvent,
) -> Result<Outcome, sqlx::Error> {
    // Still held? Then no event has settled it yet.
    let (sku, quantity, status): (String, i32, String) =
        sqlx::query_as("SELECT sku, quantity, status FROM reservations WHERE order_id = $1")
            .bind(event.order_id())
            .fetch_one(pool)
            .await?;
    if status != "held" {
        return Ok(Outcome::AlreadySettled);
    }
    let mut tx = pool.begin().await?;

    if !event.releases() {
        // The units are sold: they stay off the shelf.
        sqlx::query("UPDATE reservations SET status = 'consumed' WHERE order_id = $1")
            .bind(event.order_id())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        return Ok(Outcome::Consumed);
    }
    // ANCHOR: release
    // The compensation: not an undo of the reservation, a new change of its own. The units go
    // back on the shelf, the reservation says so, and the rest of the saga is told.
    sqlx::query("UPDATE stock SET available = available + $2 WHERE sku = $1")
        .bind(&sku)
        .bind(quantity)
        .execute(&mut *tx)
        .await?;
    sqlx::query("UPDATE reservations SET status = 'released' WHERE order_id = $1")
        .bind(event.order_id())
        .execute(&mut *tx)
        .await?;
    // Announcing twice is harmless: the outbox keeps one row per event id.
    sqlx::query(
        "INSERT INTO outbox (event_id, type, aggregate_id, payload)
         VALUES ($1 || ':released', 'stock.released', $1,
                 jsonb_build_object('order_id', $1::text, 'sku', $2::text, 'quantity', $3::int))
         ON CONFLICT (event_id) DO NOTHING",
    )
    .bind(event.order_id())
    .bind(&sku)
    .bind(quantity)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    // ANCHOR_END: release
    Ok(Outcome::Released)
}
// ANCHOR_END: handler
