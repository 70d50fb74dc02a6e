//! The outside world the payment step talks to, given to every lesson-06 crate so that a
//! student's handler is about one thing: the ids it hands them.
//!
//! - [`charge_card`] is the card network: another company's API, which charges the card for
//!   real the moment it answers. Nothing the handler rolls back takes a charge back.
//! - [`announce`] writes the step's outbox row (lesson 05), which a relay publishes to the saga
//!   after it commits. The saga deduplicates on the row's `event_id` (lesson 02's guard).
//!
//! Both are deliberately naive about duplicates: they do what they are told with the ids they
//! are given. Hand them a fresh id on every delivery and they charge and announce afresh.

use sqlx::postgres::PgExecutor;
use sqlx::{Connection, PgConnection, PgPool};

use crate::OrderCreated;
use crate::event::DECLINED_CARD;

/// What the card network answered: its charge's id, and whether the card paid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charge {
    id: String,
    declined: bool,
}

impl Charge {
    /// The network's id for the charge (`ch_…`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether the card was declined (nothing was paid, and the order must be cancelled).
    pub fn declined(&self) -> bool {
        self.declined
    }
}

// ANCHOR: charge_card
/// Asks the card network to charge `order`'s card for the order's amount, under
/// `idempotency_key`. A key the network has seen before returns the charge it made then, and
/// charges nothing: that is how a caller retries safely. A new key is a new charge.
///
/// The network is another system: this call reaches it on a connection of its own (a request
/// to its API), and its answer is final the moment it comes back, whatever the caller's
/// transaction does next.
pub async fn charge_card(
    pool: &PgPool,
    idempotency_key: &str,
    order: &OrderCreated,
) -> Result<Charge, sqlx::Error> {
    let mut network = PgConnection::connect_with(&pool.connect_options()).await?;
    let status = if order.card() == DECLINED_CARD {
        "declined"
    } else {
        "succeeded"
    };
    // The network's own guard is the one this workbook teaches: a key, and the insert decides.
    let charged: Option<(String, String)> = sqlx::query_as(
        "INSERT INTO card_network.charges (idempotency_key, order_id, amount_cents, status)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING id, status",
    )
    .bind(idempotency_key)
    .bind(order.order_id())
    .bind(order.amount_cents())
    .bind(status)
    .fetch_optional(&mut network)
    .await?;
    let (id, status) = match charged {
        Some(new) => new,
        // Seen before: the charge made then, and nothing new.
        None => {
            sqlx::query_as(
                "SELECT id, status FROM card_network.charges
                  WHERE idempotency_key = $1",
            )
            .bind(idempotency_key)
            .fetch_one(&mut network)
            .await?
        }
    };
    network.close().await?;
    Ok(Charge {
        id,
        declined: status == "declined",
    })
}
// ANCHOR_END: charge_card

// ANCHOR: announce
/// Writes the outbox row that tells the saga how the payment went: `payment.succeeded` or
/// `payment.failed`, under `event_id`, the id the saga deduplicates on. On the handler's
/// transaction, it commits or rolls back with the step's record of the payment.
pub async fn announce(
    conn: impl PgExecutor<'_>,
    event_id: &str,
    order: &OrderCreated,
    charge: &Charge,
) -> Result<(), sqlx::Error> {
    let (kind, reason) = if charge.declined() {
        ("payment.failed", Some("card declined"))
    } else {
        ("payment.succeeded", None)
    };
    // The payload is what lesson 02-05's saga reads: it could consume these rows as they are.
    sqlx::query(
        "INSERT INTO outbox (event_id, aggregate_id, type, payload)
         VALUES ($1, $2, $3, jsonb_strip_nulls(jsonb_build_object(
                     'order_id', $2::text, 'amount_cents', $4::bigint, 'reason', $5::text)))",
    )
    .bind(event_id)
    .bind(order.order_id())
    .bind(kind)
    .bind(order.amount_cents())
    .bind(reason)
    .execute(conn)
    .await?;
    Ok(())
}
// ANCHOR_END: announce
