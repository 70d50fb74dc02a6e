use kit::envelope::{Wire, check_ids, check_present};
use serde::Deserialize;

/// A request to authorize a card payment, as the card network delivers it to the issuer: at
/// least once, and sometimes more. `id` is the network's id for the request; `customer_id`
/// names whose shared limit it draws on, `card_id` the card it is charged to.
///
/// Parsed and checked at the edge ([`Authorization::from_json`]), so a handler never sees an
/// empty id, an unknown type, a non-positive amount, or an envelope and a payload that name
/// different customers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    id: String,
    customer_id: String,
    card_id: String,
    amount_cents: i64,
}

/// What the handler reports for one delivery, with how many times it ran the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handled {
    pub outcome: Outcome,
    /// How many times the delivery began the transaction: 1 when it committed (or was refused)
    /// the first time.
    pub attempts: u32,
}

/// The decision one delivery made, or that it found the event decided already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// This delivery approved the authorization: the card's spending grew by its amount.
    Approved,
    /// This delivery declined it: the customer's cards together would pass the limit.
    Declined,
    /// This very event (the same id) was decided before: this delivery changed nothing.
    Duplicate,
}

pub const TYPE: &str = "authorization.requested";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EventError {
    #[error(
        "the event is not valid JSON for an authorization ({detail}); expected an object like \
         {{\"id\": \"auth-1\", \"type\": \"authorization.requested\", \"aggregate_id\": \
         \"cus-1\", \"payload\": {{\"customer_id\": \"cus-1\", \"card_id\": \"card-1\", \
         \"amount_cents\": 8000}}, \"occurred_at\": \"2026-07-14T09:15:40Z\"}}"
    )]
    Malformed { detail: String },
    #[error("event {id} has type {kind:?}; the issuer takes {TYPE}")]
    UnknownType { id: String, kind: String },
    #[error(
        "the event's {field} is {bytes} bytes long; the workbook takes ids of at most {} bytes",
        kit::MAX_ID_BYTES
    )]
    TooLong { field: &'static str, bytes: usize },
    #[error("the event's {field} is empty; every authorization needs one")]
    Empty { field: &'static str },
    #[error(
        "event {id} is about customer {aggregate_id:?} but its payload names customer \
         {order_id:?}; refusing to guess which one it means"
    )]
    OrderMismatch {
        id: String,
        aggregate_id: String,
        order_id: String,
    },
    #[error("event {id} asks for {amount_cents} cents; an authorization is for a positive amount")]
    NotPositive { id: String, amount_cents: i64 },
}

// The kit checks the envelope and the ids (kit::envelope); what it finds is told in this
// lesson's words, by the variants above with the same names and fields.
kit::from_problem!(EventError);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WirePayload {
    customer_id: String,
    card_id: String,
    amount_cents: i64,
}

impl Authorization {
    pub fn new(
        id: impl Into<String>,
        customer_id: impl Into<String>,
        card_id: impl Into<String>,
        amount_cents: i64,
    ) -> Result<Authorization, EventError> {
        let (id, customer_id, card_id) = (id.into(), customer_id.into(), card_id.into());
        check_ids([
            ("id", &id),
            ("customer_id", &customer_id),
            ("card_id", &card_id),
        ])?;
        if amount_cents <= 0 {
            return Err(EventError::NotPositive { id, amount_cents });
        }
        Ok(Authorization {
            id,
            customer_id,
            card_id,
            amount_cents,
        })
    }

    /// Parses an authorization request as the card network sends it.
    pub fn from_json(json: &str) -> Result<Authorization, EventError> {
        let wire: Wire<WirePayload> =
            serde_json::from_str(json).map_err(|e| EventError::Malformed {
                detail: e.to_string(),
            })?;
        if wire.kind != TYPE {
            return Err(EventError::UnknownType {
                id: wire.id,
                kind: wire.kind,
            });
        }
        wire.check_order(&wire.payload.customer_id)?;
        check_present([("occurred_at", &wire.occurred_at)])?;
        let WirePayload {
            card_id,
            amount_cents,
            ..
        } = wire.payload;
        Authorization::new(wire.id, wire.aggregate_id, card_id, amount_cents)
    }

    /// The request's own id, as the card network minted it.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whose shared limit the authorization draws on.
    pub fn customer_id(&self) -> &str {
        &self.customer_id
    }

    pub fn card_id(&self) -> &str {
        &self.card_id
    }

    pub fn amount_cents(&self) -> i64 {
        self.amount_cents
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AUTH: &str = r#"{"id":"auth-1","type":"authorization.requested","aggregate_id":"cus-1",
        "payload":{"customer_id":"cus-1","card_id":"card-1","amount_cents":8000},
        "occurred_at":"2026-07-14T09:15:40Z"}"#;

    #[test]
    fn an_authorization_parses() {
        let event = Authorization::from_json(AUTH).unwrap();
        assert_eq!(
            (
                event.id(),
                event.customer_id(),
                event.card_id(),
                event.amount_cents()
            ),
            ("auth-1", "cus-1", "card-1", 8000)
        );
    }

    #[test]
    fn malformed_json_says_what_was_expected() {
        let message = (Authorization::from_json(r#"{"id":"x"}"#).unwrap_err()).to_string();
        assert!(message.contains("missing field"), "{message}");
        assert!(message.contains(r#""amount_cents": 8000"#), "{message}");
    }

    #[test]
    fn another_type_another_customer_and_a_non_positive_amount_are_refused() {
        let json = AUTH.replace(TYPE, "authorization.reversed");
        assert!(matches!(
            Authorization::from_json(&json),
            Err(EventError::UnknownType { .. })
        ));
        let json = AUTH.replace(r#""aggregate_id":"cus-1""#, r#""aggregate_id":"cus-2""#);
        assert!(matches!(
            Authorization::from_json(&json),
            Err(EventError::OrderMismatch { .. })
        ));
        let json = AUTH.replace("8000", "0");
        assert_eq!(
            Authorization::from_json(&json),
            Err(EventError::NotPositive {
                id: "auth-1".into(),
                amount_cents: 0
            })
        );
    }

    #[test]
    fn unknown_fields_and_empty_ids_are_refused() {
        let extra = AUTH.replace(r#""card_id""#, r#""merchant":"m-1","card_id""#);
        let message = Authorization::from_json(&extra).unwrap_err().to_string();
        assert!(message.contains("unknown field `merchant`"), "{message}");
        let empty = AUTH.replace(r#""card_id":"card-1""#, r#""card_id":"""#);
        assert_eq!(
            Authorization::from_json(&empty),
            Err(EventError::Empty { field: "card_id" })
        );
    }
}
