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
    let mut tx = pool.begin().await?;
    // ANCHOR: guards
    // Guard 1: the insert decides whether this event was handled. A concurrent delivery of the
    // same event waits here for this one's commit, then finds the row and stops.
    let first = sqlx::query(
        "INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT (event_id) DO NOTHING",
    )
    .bind(event.id())
    .execute(&mut *tx)
    .await?;
    if first.rows_affected() == 0 {
        tx.commit().await?;
        return Ok(Outcome::AlreadyProcessed);
    }
    // ANCHOR: tombstone
    // A release may come before the reservation it releases. The order's key decides: a row
    // written now, holding nothing, is a tombstone, and the reservation that comes later finds
    // the key taken and holds nothing. A reservation being written meanwhile makes this insert
    // wait for its commit, and then insert nothing: the reservation is there to release.
    if event.releases() {
        let tombstone = sqlx::query(
            "INSERT INTO reservations (order_id, status) VALUES ($1, 'released')
             ON CONFLICT (order_id) DO NOTHING",
        )
        .bind(event.order_id())
        .execute(&mut *tx)
        .await?;
        if tombstone.rows_affected() == 1 {
            tx.commit().await?;
            return Ok(Outcome::NothingReserved);
        }
    }
    // ANCHOR_END: tombstone
    // Guard 2: a different event settling the same reservation waits on this row lock, then
    // reads what the first one committed. Only 'held' moves; every other state is final, a
    // tombstone (no units) included.
    let (status, sku, quantity): (String, Option<String>, Option<i32>) = sqlx::query_as(
        "SELECT status, sku, quantity FROM reservations WHERE order_id = $1 FOR UPDATE",
    )
    .bind(event.order_id())
    .fetch_one(&mut *tx)
    .await?;
    let (Some(sku), Some(quantity), "held") = (sku, quantity, status.as_str()) else {
        tx.commit().await?;
        return Ok(Outcome::AlreadySettled);
    };
    // ANCHOR_END: guards

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
    // The only release of this order, as the guards decided: no ON CONFLICT to forgive a
    // second one. It commits with the release, or neither does.
    sqlx::query(
        "INSERT INTO outbox (event_id, type, aggregate_id, payload)
         VALUES ($1 || ':released', 'stock.released', $1,
                 jsonb_build_object('order_id', $1::text, 'sku', $2::text, 'quantity', $3::int))",
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
