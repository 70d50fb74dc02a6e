use kit::envelope::{Wire, check_ids, check_present};
use serde::Deserialize;

/// An event that settles an order's stock reservation, as the inventory service consumes it
/// (from Kafka, say), at least once and sometimes more. `id` is the event's own id, minted by
/// the service that published it; `order_id` names the order, and so the reservation.
///
/// Parsed and checked at the edge ([`ReservationEvent::from_json`]), so a handler never sees an
/// empty id, an unknown type, or an event whose envelope and payload disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReservationEvent {
    id: String,
    kind: Kind,
    order_id: String,
}

/// The three events the inventory service reacts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The payment service could not charge the customer: the order will not be fulfilled.
    PaymentFailed,
    /// The customer cancelled the order before it was paid.
    OrderCancelled,
    /// The customer paid: the reserved units are sold.
    PaymentSucceeded,
}

impl Kind {
    /// The event's `type`, as it travels.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::PaymentFailed => "payment.failed",
            Kind::OrderCancelled => "order.cancelled",
            Kind::PaymentSucceeded => "payment.succeeded",
        }
    }

    fn parse(kind: &str) -> Option<Kind> {
        [
            Kind::PaymentFailed,
            Kind::OrderCancelled,
            Kind::PaymentSucceeded,
        ]
        .into_iter()
        .find(|k| k.as_str() == kind)
    }
}

/// What a handler reports for one delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// This delivery released the reservation: its units are back in stock, and
    /// stock.released is in the outbox.
    Released,
    /// This delivery consumed the reservation: its units are sold.
    Consumed,
    /// This very event (the same id) was handled before, or is being handled by a concurrent
    /// delivery that committed first; this one changed nothing.
    AlreadyProcessed,
    /// Another event settled the reservation first; this one changed nothing.
    AlreadySettled,
    /// A release that came before the order's reservation: there was nothing to put back, and
    /// the reservation, when it comes, must hold nothing for the order.
    NothingReserved,
}

const TYPES: &str = "payment.failed, order.cancelled or payment.succeeded";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EventError {
    #[error(
        "the event is not valid JSON for a reservation event ({detail}); expected an object \
         like {{\"id\": \"evt-pay-1\", \"type\": \"payment.failed\", \"aggregate_id\": \"ord-1\", \
         \"payload\": {{\"order_id\": \"ord-1\", \"reason\": \"card declined\"}}, \
         \"occurred_at\": \"2026-07-14T09:15:40Z\"}} (reason is optional)"
    )]
    Malformed { detail: String },
    #[error("event {id} has type {kind:?}; the inventory service takes {TYPES}")]
    UnknownType { id: String, kind: String },
    #[error(
        "the event's {field} is {bytes} bytes long; the workbook takes ids of at most {} bytes",
        kit::MAX_ID_BYTES
    )]
    TooLong { field: &'static str, bytes: usize },
    #[error("the event's {field} is empty; every reservation event needs one")]
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
}

// The kit checks the envelope and the ids (kit::envelope); what it finds is told in this
// lesson's words, by the variants above with the same names and fields.
kit::from_problem!(EventError);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WirePayload {
    order_id: String,
    // Why the order failed or was cancelled: for people reading logs; it decides nothing.
    #[serde(rename = "reason")]
    _reason: Option<String>,
}

impl ReservationEvent {
    pub fn new(
        id: impl Into<String>,
        kind: Kind,
        order_id: impl Into<String>,
    ) -> Result<ReservationEvent, EventError> {
        let (id, order_id) = (id.into(), order_id.into());
        check_ids([("id", &id), ("order_id", &order_id)])?;
        Ok(ReservationEvent { id, kind, order_id })
    }

    /// Parses an event as the payment or order service publishes it.
    pub fn from_json(json: &str) -> Result<ReservationEvent, EventError> {
        let wire: Wire<WirePayload> =
            serde_json::from_str(json).map_err(|e| EventError::Malformed {
                detail: e.to_string(),
            })?;
        let Some(kind) = Kind::parse(&wire.kind) else {
            return Err(EventError::UnknownType {
                id: wire.id,
                kind: wire.kind,
            });
        };
        wire.check_order(&wire.payload.order_id)?;
        check_present([("occurred_at", &wire.occurred_at)])?;
        ReservationEvent::new(wire.id, kind, wire.aggregate_id)
    }

    /// The event's own id, as the service that published it minted it.
    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The order whose reservation the event settles.
    pub fn order_id(&self) -> &str {
        &self.order_id
    }

    /// Whether the event calls for the compensation: the reservation released, its units
    /// returned to stock. `payment.succeeded` consumes it instead.
    pub fn releases(&self) -> bool {
        self.kind != Kind::PaymentSucceeded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAILED: &str = r#"{"id":"evt-pay-1","type":"payment.failed","aggregate_id":"ord-1",
        "payload":{"order_id":"ord-1","reason":"card declined"},"occurred_at":"2026-07-14T09:15:40Z"}"#;

    #[test]
    fn each_type_parses_and_says_whether_it_releases() {
        let event = ReservationEvent::from_json(FAILED).unwrap();
        assert_eq!(
            (event.id(), event.kind(), event.order_id(), event.releases()),
            ("evt-pay-1", Kind::PaymentFailed, "ord-1", true)
        );
        let cancelled = FAILED.replace("payment.failed", "order.cancelled");
        assert!(ReservationEvent::from_json(&cancelled).unwrap().releases());
        let paid = FAILED
            .replace("payment.failed", "payment.succeeded")
            .replace(r#","reason":"card declined""#, "");
        let paid = ReservationEvent::from_json(&paid).unwrap();
        assert_eq!(paid.kind(), Kind::PaymentSucceeded);
        assert!(!paid.releases());
    }

    #[test]
    fn malformed_json_says_what_was_expected() {
        let message = ReservationEvent::from_json(r#"{"id":"x"}"#)
            .unwrap_err()
            .to_string();
        assert!(message.contains("missing field"), "{message}");
        assert!(message.contains(r#""type": "payment.failed""#), "{message}");
    }

    #[test]
    fn another_type_is_refused_by_name() {
        let json = FAILED.replace("payment.failed", "order.created");
        assert_eq!(
            ReservationEvent::from_json(&json),
            Err(EventError::UnknownType {
                id: "evt-pay-1".into(),
                kind: "order.created".into()
            })
        );
    }

    #[test]
    fn envelope_and_payload_must_name_the_same_order() {
        let json = FAILED.replace(r#""aggregate_id":"ord-1""#, r#""aggregate_id":"ord-2""#);
        assert!(matches!(
            ReservationEvent::from_json(&json),
            Err(EventError::OrderMismatch { .. })
        ));
    }

    #[test]
    fn unknown_fields_empty_ids_and_long_ids_are_refused() {
        let extra = FAILED.replace(r#""reason""#, r#""quantity":2,"reason""#);
        let message = ReservationEvent::from_json(&extra).unwrap_err().to_string();
        assert!(message.contains("unknown field `quantity`"), "{message}");
        let empty = FAILED.replace(r#""id":"evt-pay-1""#, r#""id":" ""#);
        assert_eq!(
            ReservationEvent::from_json(&empty),
            Err(EventError::Empty { field: "id" })
        );
        let long = "o".repeat(kit::MAX_ID_BYTES + 1);
        assert_eq!(
            ReservationEvent::new("evt-1", Kind::OrderCancelled, long),
            Err(EventError::TooLong {
                field: "order_id",
                bytes: kit::MAX_ID_BYTES + 1
            })
        );
    }
}
