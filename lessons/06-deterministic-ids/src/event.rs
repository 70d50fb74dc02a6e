use kit::envelope::{Wire, check_ids, check_present};
use serde::Deserialize;

/// "A customer ordered": the order service's event, which the payment step consumes (from
/// Kafka, say), at least once and sometimes more. `id` is the event's own id; `order_id` names
/// the order, which is what the payment is for.
///
/// Parsed and checked at the edge ([`OrderCreated::from_json`]), so a handler never sees an
/// empty id, a non-positive amount, or an event whose envelope and payload disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderCreated {
    id: String,
    order_id: String,
    amount_cents: i64,
    card: String,
}

/// What a handler reports for one delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// This delivery took the payment (the card was charged, or declined) and announced it.
    Applied,
    /// An earlier (or concurrent) delivery of the same order did; this one announced nothing.
    AlreadyApplied,
}

/// The card every order is paid with, unless its event names another.
pub const DEFAULT_CARD: &str = "tok_visa";

/// The card the network declines, as payment providers' test cards do.
pub const DECLINED_CARD: &str = "tok_chargeDeclined";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EventError {
    #[error(
        "the event is not valid JSON for an order.created ({detail}); expected an object like \
         {{\"id\": \"evt-ord-1\", \"type\": \"order.created\", \"aggregate_id\": \"ord-1\", \
         \"payload\": {{\"order_id\": \"ord-1\", \"amount_cents\": 2598, \"card\": \"tok_visa\"}}, \
         \"occurred_at\": \"2026-07-14T09:15:00Z\"}} (card is optional)"
    )]
    Malformed { detail: String },
    #[error("event {id} has type {kind:?}; the payment step takes \"order.created\"")]
    UnknownType { id: String, kind: String },
    #[error(
        "the event's {field} is {bytes} bytes long; the workbook takes ids of at most {} bytes",
        kit::MAX_ID_BYTES
    )]
    TooLong { field: &'static str, bytes: usize },
    #[error("the event's {field} is empty; every order.created needs one")]
    Empty { field: &'static str },
    #[error(
        "event {id} is about order {aggregate_id:?} but its payload names order {order_id:?}; \
         refusing to guess which one it means"
    )]
    OrderMismatch {
        id: String,
        aggregate_id: String,
        order_id: String,
    },
    #[error("order {order_id} is for {amount_cents} cents; an order's amount must be positive")]
    NotPositive { order_id: String, amount_cents: i64 },
}

// The kit checks the envelope and the ids (kit::envelope); what it finds is told in this
// lesson's words, by the variants above with the same names and fields.
kit::from_problem!(EventError);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WirePayload {
    order_id: String,
    amount_cents: i64,
    card: Option<String>,
}

impl OrderCreated {
    pub fn new(
        id: impl Into<String>,
        order_id: impl Into<String>,
        amount_cents: i64,
        card: impl Into<String>,
    ) -> Result<OrderCreated, EventError> {
        let (id, order_id, card) = (id.into(), order_id.into(), card.into());
        check_ids([("id", &id), ("order_id", &order_id), ("card", &card)])?;
        if amount_cents <= 0 {
            return Err(EventError::NotPositive {
                order_id,
                amount_cents,
            });
        }
        Ok(OrderCreated {
            id,
            order_id,
            amount_cents,
            card,
        })
    }

    /// Parses an order.created as the order service publishes it.
    pub fn from_json(json: &str) -> Result<OrderCreated, EventError> {
        let wire: Wire<WirePayload> =
            serde_json::from_str(json).map_err(|e| EventError::Malformed {
                detail: e.to_string(),
            })?;
        if wire.kind != "order.created" {
            return Err(EventError::UnknownType {
                id: wire.id,
                kind: wire.kind,
            });
        }
        wire.check_order(&wire.payload.order_id)?;
        check_present([("occurred_at", &wire.occurred_at)])?;
        let card = wire.payload.card.unwrap_or_else(|| DEFAULT_CARD.into());
        OrderCreated::new(wire.id, wire.aggregate_id, wire.payload.amount_cents, card)
    }

    /// The event's own id, as the order service minted it.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The order the payment is for.
    pub fn order_id(&self) -> &str {
        &self.order_id
    }

    pub fn amount_cents(&self) -> i64 {
        self.amount_cents
    }

    /// The card token to charge.
    pub fn card(&self) -> &str {
        &self.card
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CREATED: &str = r#"{"id":"evt-ord-1","type":"order.created","aggregate_id":"ord-1",
        "payload":{"order_id":"ord-1","amount_cents":2598},"occurred_at":"2026-07-14T09:15:00Z"}"#;

    #[test]
    fn an_order_created_parses_with_the_default_card() {
        let event = OrderCreated::from_json(CREATED).unwrap();
        assert_eq!(event.id(), "evt-ord-1");
        assert_eq!(event.order_id(), "ord-1");
        assert_eq!(event.amount_cents(), 2598);
        assert_eq!(event.card(), DEFAULT_CARD);
    }

    #[test]
    fn a_card_is_taken_from_the_payload() {
        let json = CREATED.replace("2598}", r#"2598,"card":"tok_chargeDeclined"}"#);
        assert_eq!(
            OrderCreated::from_json(&json).unwrap().card(),
            DECLINED_CARD
        );
    }

    #[test]
    fn malformed_json_says_what_was_expected() {
        let message = OrderCreated::from_json(r#"{"id":"x"}"#)
            .unwrap_err()
            .to_string();
        assert!(message.contains("missing field"), "{message}");
        assert!(message.contains(r#""type": "order.created""#), "{message}");
    }

    #[test]
    fn another_type_is_refused_by_name() {
        let json = CREATED.replace("order.created", "payment.succeeded");
        assert_eq!(
            OrderCreated::from_json(&json),
            Err(EventError::UnknownType {
                id: "evt-ord-1".into(),
                kind: "payment.succeeded".into()
            })
        );
    }

    #[test]
    fn envelope_and_payload_must_name_the_same_order() {
        let json = CREATED.replace(r#""aggregate_id":"ord-1""#, r#""aggregate_id":"ord-2""#);
        assert!(matches!(
            OrderCreated::from_json(&json),
            Err(EventError::OrderMismatch { .. })
        ));
    }

    #[test]
    fn unknown_fields_empty_ids_long_ids_and_bad_amounts_are_refused() {
        let extra = CREATED.replace("2598}", r#"2598,"amount":1}"#);
        let message = OrderCreated::from_json(&extra).unwrap_err().to_string();
        assert!(message.contains("unknown field `amount`"), "{message}");

        let empty = CREATED.replace(r#""id":"evt-ord-1""#, r#""id":" ""#);
        assert_eq!(
            OrderCreated::from_json(&empty),
            Err(EventError::Empty { field: "id" })
        );
        let long = "o".repeat(kit::MAX_ID_BYTES + 1);
        assert_eq!(
            OrderCreated::new("evt-1", long, 1, DEFAULT_CARD),
            Err(EventError::TooLong {
                field: "order_id",
                bytes: kit::MAX_ID_BYTES + 1
            })
        );
        let zero = CREATED.replace("2598", "0");
        assert!(matches!(
            OrderCreated::from_json(&zero),
            Err(EventError::NotPositive { .. })
        ));
    }
}
