use kit::envelope::{Wire, check_ids, check_present};
use serde::Deserialize;

/// The payment service's verdict on one order, as the saga receives it (from Kafka, say). The
/// id is the idempotency key: the payment service derives it from the order event it answered
/// (`<order event id>:payment`), so a redelivered request yields a verdict with the same id.
///
/// Parsed and checked at the edge ([`PaymentEvent::from_json`]), so a handler never sees an
/// empty id, a non-positive amount, or an event whose envelope and payload disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentEvent {
    id: String,
    order_id: String,
    amount_cents: i64,
    result: PaymentResult,
    occurred_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentResult {
    /// `payment.succeeded`: `amount_cents` was paid towards the order.
    Succeeded,
    /// `payment.failed`: the order cannot be paid.
    Failed { reason: String },
}

/// What a handler reports for one delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// This delivery applied the event: the order changed (and, if it reached a terminal
    /// status, an outbox row says so).
    Applied,
    /// This event id was handled before (or concurrently, by a delivery that committed): a
    /// redelivery. Nothing was touched.
    AlreadyApplied,
    /// A new event for an order that had already left `pending`: the event is recorded as
    /// handled, and the order is left as it was.
    OrderAlreadyResolved,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EventError {
    #[error(
        "the event is not valid JSON for a payment result ({detail}); expected an object like \
         {{\"id\": \"ord-1:payment\", \"type\": \"payment.succeeded\", \"aggregate_id\": \"ord-1\", \
         \"payload\": {{\"order_id\": \"ord-1\", \"amount_cents\": 2598}}, \
         \"occurred_at\": \"2026-07-14T09:15:40Z\"}}"
    )]
    Malformed { detail: String },
    #[error(
        "event {id} has type {kind:?}; a payment result is \"payment.succeeded\" or \
         \"payment.failed\""
    )]
    UnknownType { id: String, kind: String },
    #[error(
        "the event's {field} is {bytes} bytes long; the workbook takes ids of at most {} bytes",
        kit::MAX_ID_BYTES
    )]
    TooLong { field: &'static str, bytes: usize },
    #[error("the event's {field} is empty; every payment result needs one")]
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
    #[error("event {id} is for {amount_cents} cents; a payment amount must be positive")]
    NotPositive { id: String, amount_cents: i64 },
    #[error("event {id} is a payment.succeeded with a reason; only a payment.failed has one")]
    ReasonOnSuccess { id: String },
}

// The kit checks the envelope and the ids (kit::envelope); what it finds is told in this
// lesson's words, by the variants above with the same names and fields.
kit::from_problem!(EventError);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WirePayload {
    order_id: String,
    amount_cents: i64,
    reason: Option<String>,
}

impl PaymentEvent {
    pub fn new(
        id: impl Into<String>,
        order_id: impl Into<String>,
        amount_cents: i64,
        result: PaymentResult,
    ) -> Result<PaymentEvent, EventError> {
        let (id, order_id) = (id.into(), order_id.into());
        // Both ids present before either is measured (lessons 06 and 10 go field by field): an
        // event with a long id and no order is told its order is missing, as it always was.
        check_present([("id", &id), ("order_id", &order_id)])?;
        check_ids([("id", &id), ("order_id", &order_id)])?;
        if amount_cents <= 0 {
            return Err(EventError::NotPositive { id, amount_cents });
        }
        Ok(PaymentEvent {
            id,
            order_id,
            amount_cents,
            result,
            occurred_at: String::new(),
        })
    }

    /// Parses a payment result as the payment service publishes it.
    pub fn from_json(json: &str) -> Result<PaymentEvent, EventError> {
        let wire: Wire<WirePayload> =
            serde_json::from_str(json).map_err(|e| EventError::Malformed {
                detail: e.to_string(),
            })?;
        let result = match (wire.kind.as_str(), &wire.payload.reason) {
            ("payment.succeeded", None) => PaymentResult::Succeeded,
            ("payment.succeeded", Some(_)) => {
                return Err(EventError::ReasonOnSuccess { id: wire.id });
            }
            ("payment.failed", reason) => PaymentResult::Failed {
                reason: reason.clone().unwrap_or_default(),
            },
            (other, _) => {
                return Err(EventError::UnknownType {
                    id: wire.id,
                    kind: other.to_string(),
                });
            }
        };
        wire.check_order(&wire.payload.order_id)?;
        check_present([("occurred_at", &wire.occurred_at)])?;
        let event = PaymentEvent::new(
            wire.id,
            wire.aggregate_id,
            wire.payload.amount_cents,
            result,
        )?;
        Ok(PaymentEvent {
            occurred_at: wire.occurred_at,
            ..event
        })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn order_id(&self) -> &str {
        &self.order_id
    }

    pub fn amount_cents(&self) -> i64 {
        self.amount_cents
    }

    pub fn result(&self) -> &PaymentResult {
        &self.result
    }

    /// As the payment service stamped it; empty for an event built with [`PaymentEvent::new`].
    pub fn occurred_at(&self) -> &str {
        &self.occurred_at
    }

    /// The wire name of the event's type.
    pub fn kind(&self) -> &'static str {
        match self.result {
            PaymentResult::Succeeded => "payment.succeeded",
            PaymentResult::Failed { .. } => "payment.failed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUCCEEDED: &str = r#"{"id":"ord-1:payment","type":"payment.succeeded","aggregate_id":"ord-1",
        "payload":{"order_id":"ord-1","amount_cents":2598},"occurred_at":"2026-07-14T09:15:40Z"}"#;

    #[test]
    fn a_payment_result_parses() {
        let event = PaymentEvent::from_json(SUCCEEDED).unwrap();
        assert_eq!(event.id(), "ord-1:payment");
        assert_eq!(event.order_id(), "ord-1");
        assert_eq!(event.amount_cents(), 2598);
        assert_eq!(event.result(), &PaymentResult::Succeeded);
        assert_eq!(event.occurred_at(), "2026-07-14T09:15:40Z");
    }

    #[test]
    fn a_failure_keeps_its_reason() {
        let json = r#"{"id":"late-failure-001","type":"payment.failed","aggregate_id":"ord-1",
            "payload":{"order_id":"ord-1","amount_cents":2598,"reason":"amount exceeds limit"},
            "occurred_at":"2026-07-14T09:20:00Z"}"#;
        let event = PaymentEvent::from_json(json).unwrap();
        assert_eq!(
            event.result(),
            &PaymentResult::Failed {
                reason: "amount exceeds limit".into()
            }
        );
    }

    #[test]
    fn malformed_json_says_what_was_expected() {
        let message = PaymentEvent::from_json(r#"{"id":"x"}"#)
            .unwrap_err()
            .to_string();
        assert!(message.contains("missing field"), "{message}");
        assert!(
            message.contains(r#""type": "payment.succeeded""#),
            "{message}"
        );
    }

    #[test]
    fn an_unknown_type_names_the_known_ones() {
        let json = SUCCEEDED.replace("payment.succeeded", "payment.refunded");
        let error = PaymentEvent::from_json(&json).unwrap_err();
        assert_eq!(
            error,
            EventError::UnknownType {
                id: "ord-1:payment".into(),
                kind: "payment.refunded".into()
            }
        );
        assert!(error.to_string().contains("\"payment.failed\""));
    }

    #[test]
    fn envelope_and_payload_must_name_the_same_order() {
        let json = SUCCEEDED.replace(r#""aggregate_id":"ord-1""#, r#""aggregate_id":"ord-2""#);
        assert!(matches!(
            PaymentEvent::from_json(&json),
            Err(EventError::OrderMismatch { .. })
        ));
    }

    #[test]
    fn unknown_fields_empty_ids_and_bad_amounts_are_refused() {
        let extra = SUCCEEDED.replace(
            r#""amount_cents":2598"#,
            r#""amount_cents":2598,"amount":1"#,
        );
        let message = PaymentEvent::from_json(&extra).unwrap_err().to_string();
        assert!(message.contains("unknown field `amount`"), "{message}");

        let empty = SUCCEEDED.replace(r#""id":"ord-1:payment""#, r#""id":" ""#);
        assert_eq!(
            PaymentEvent::from_json(&empty),
            Err(EventError::Empty { field: "id" })
        );
        let zero = SUCCEEDED.replace("2598", "0");
        assert!(matches!(
            PaymentEvent::from_json(&zero),
            Err(EventError::NotPositive { .. })
        ));
        let reason = SUCCEEDED.replace("2598}", r#"2598,"reason":"?"}"#);
        assert!(matches!(
            PaymentEvent::from_json(&reason),
            Err(EventError::ReasonOnSuccess { .. })
        ));
    }
}
