//! The effect of a payment result on its order, given to every saga lesson so that a student's
//! handler is about one thing: the guards around it.
//!
//! Both functions are deliberately naive. They assume the guards already ran: they do not ask
//! whether the event is new, nor whether the order is still pending. Call them twice for one
//! event and they change the order twice and announce it twice.

use sqlx::postgres::PgExecutor;

use crate::{PaymentEvent, PaymentResult};

/// What the rest of the system must hear about an order that reached a terminal status: one
/// outbox row, which a relay publishes after it commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderEvent {
    id: String,
    order_id: String,
    kind: &'static str,
    caused_by: String,
}

impl OrderEvent {
    // ANCHOR: order_event_id
    /// Derived from the payment event, never drawn at random: whoever handles the same payment
    /// event again announces the same order event, so a consumer downstream can dedupe on it.
    pub fn id_for(cause: &PaymentEvent) -> String {
        format!("{}:order", cause.id())
    }
    // ANCHOR_END: order_event_id

    /// `order.confirmed` or `order.cancelled`.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    pub fn id(&self) -> &str {
        &self.id
    }
}

// ANCHOR: apply_to_order
/// Applies `event` to its order: a payment adds to what was paid and confirms the order once
/// it is paid in full; a failure cancels it. Returns the order event to announce when the order
/// is now in a terminal status. An order that does not exist is an error (`RowNotFound`), so
/// that the handler's transaction rolls back.
pub async fn apply_to_order(
    conn: impl PgExecutor<'_>,
    event: &PaymentEvent,
) -> Result<Option<OrderEvent>, sqlx::Error> {
    let status: String = match event.result() {
        PaymentResult::Succeeded => {
            sqlx::query_scalar(
                "UPDATE orders
                    SET paid_cents = paid_cents + $2,
                        status = CASE WHEN paid_cents + $2 >= amount_cents
                                      THEN 'confirmed' ELSE status END
                  WHERE id = $1
              RETURNING status",
            )
            .bind(event.order_id())
            .bind(event.amount_cents())
            .fetch_one(conn)
            .await?
        }
        PaymentResult::Failed { .. } => {
            sqlx::query_scalar(
                "UPDATE orders SET status = 'cancelled' WHERE id = $1 RETURNING status",
            )
            .bind(event.order_id())
            .fetch_one(conn)
            .await?
        }
    };
    let kind = match status.as_str() {
        "confirmed" => "order.confirmed",
        "cancelled" => "order.cancelled",
        _ => return Ok(None),
    };
    Ok(Some(OrderEvent {
        id: OrderEvent::id_for(event),
        order_id: event.order_id().to_string(),
        kind,
        caused_by: event.id().to_string(),
    }))
}
// ANCHOR_END: apply_to_order

// ANCHOR: enqueue
/// Writes `order_event` to the outbox, on whatever connection it is given: inside the
/// handler's transaction, it commits or rolls back with the order's change.
pub async fn enqueue(
    conn: impl PgExecutor<'_>,
    order_event: &OrderEvent,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO outbox (aggregate_id, type, payload)
         VALUES ($1, $2, jsonb_build_object('id', $3::text, 'order_id', $1::text,
                                            'caused_by', $4::text))",
    )
    .bind(&order_event.order_id)
    .bind(order_event.kind)
    .bind(&order_event.id)
    .bind(&order_event.caused_by)
    .execute(conn)
    .await?;
    Ok(())
}
// ANCHOR_END: enqueue
