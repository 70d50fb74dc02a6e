use serde::Deserialize;

/// "Credit `amount_cents` to `account`", identified by `id`. The id is the idempotency key:
/// the same id delivered twice is the same credit, not two.
///
/// Parsed at the edge ([`CreditEvent::from_json`], [`CreditEvent::new`]), so a handler never
/// sees an empty id or a non-positive amount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditEvent {
    id: String,
    account: String,
    amount_cents: i64,
}

/// What a handler reports for one delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// This delivery credited the account.
    Applied,
    /// An earlier (or concurrent) delivery of the same event did; this one changed nothing.
    AlreadyApplied,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EventError {
    #[error(
        "the event is not valid JSON for a credit ({detail}); expected an object like \
         {{\"id\": \"evt-1\", \"account\": \"acc-1\", \"amount_cents\": 100}}"
    )]
    Malformed { detail: String },
    #[error(
        "the event's {field} is {bytes} bytes long; the workbook takes ids of at most {} bytes",
        kit::MAX_ID_BYTES
    )]
    TooLong { field: &'static str, bytes: usize },
    #[error("the event's {field} is empty; every event needs one")]
    Empty { field: &'static str },
    #[error("event {id} credits {amount_cents} cents; a credit must be a positive amount")]
    NotPositive { id: String, amount_cents: i64 },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    id: String,
    account: String,
    amount_cents: i64,
}

impl CreditEvent {
    pub fn new(
        id: impl Into<String>,
        account: impl Into<String>,
        amount_cents: i64,
    ) -> Result<CreditEvent, EventError> {
        let (id, account) = (id.into(), account.into());
        if id.trim().is_empty() {
            return Err(EventError::Empty { field: "id" });
        }
        if account.trim().is_empty() {
            return Err(EventError::Empty { field: "account" });
        }
        for (field, value) in [("id", &id), ("account", &account)] {
            if value.len() > kit::MAX_ID_BYTES {
                return Err(EventError::TooLong {
                    field,
                    bytes: value.len(),
                });
            }
        }
        if amount_cents <= 0 {
            return Err(EventError::NotPositive { id, amount_cents });
        }
        Ok(CreditEvent {
            id,
            account,
            amount_cents,
        })
    }

    /// Parses an event as a broker or webhook would deliver it.
    pub fn from_json(json: &str) -> Result<CreditEvent, EventError> {
        let wire: Wire = serde_json::from_str(json).map_err(|e| EventError::Malformed {
            detail: e.to_string(),
        })?;
        CreditEvent::new(wire.id, wire.account, wire.amount_cents)
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn account(&self) -> &str {
        &self.account
    }

    pub fn amount_cents(&self) -> i64 {
        self.amount_cents
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_well_formed_event_parses() {
        let event =
            CreditEvent::from_json(r#"{"id":"evt-1","account":"acc-1","amount_cents":100}"#);
        assert_eq!(event, CreditEvent::new("evt-1", "acc-1", 100));
    }

    #[test]
    fn malformed_json_says_what_was_expected() {
        let error = CreditEvent::from_json(r#"{"id":"evt-1","amount_cents":100}"#).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("missing field `account`"), "{message}");
        assert!(message.contains(r#""amount_cents": 100"#), "{message}");
    }

    #[test]
    fn an_unknown_field_is_rejected_rather_than_ignored() {
        let error = CreditEvent::from_json(
            r#"{"id":"evt-1","account":"acc-1","amount_cents":100,"amount":5}"#,
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("unknown field `amount`"),
            "{error}"
        );
    }

    #[test]
    fn empty_ids_and_non_positive_amounts_are_refused() {
        assert_eq!(
            CreditEvent::new(" ", "acc-1", 100),
            Err(EventError::Empty { field: "id" })
        );
        assert_eq!(
            CreditEvent::new("evt-1", "", 100),
            Err(EventError::Empty { field: "account" })
        );
        assert_eq!(
            CreditEvent::new("evt-1", "acc-1", 0),
            Err(EventError::NotPositive {
                id: "evt-1".into(),
                amount_cents: 0
            })
        );
    }
}
