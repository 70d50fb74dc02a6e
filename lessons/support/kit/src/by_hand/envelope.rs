//! The envelope the saga's events travel in, and the checks every lesson makes of it.
//!
//! Lessons take events of their own (payment results, `order.created`, reservation events),
//! but they all arrive as the same JSON object: `{"id", "type", "aggregate_id", "payload",
//! "occurred_at"}`. What an event carries and which types a lesson takes stay in the lesson,
//! with the lesson's own error messages; this module holds what is the same for all of them:
//! the envelope's fields, and the rules for ids and for an envelope whose payload names another
//! order. A lesson turns a [`Problem`] into its own error ([`from_problem!`](crate::from_problem)),
//! so a student still reads the lesson's words.

use serde::Deserialize;

use crate::MAX_ID_BYTES;

/// An event as it travels, with the lesson's payload `P`. Unknown fields are refused, here and
/// (with `#[serde(deny_unknown_fields)]` on `P`) in the payload: a misspelt field would
/// otherwise be silently ignored, and its value lost.
///
/// Named `Wire` because serde names the type in its messages (`expected struct Wire`), and the
/// lessons' messages were written when each lesson had a `Wire` of its own.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wire<P> {
    /// The event's own id, minted by the service that published it.
    pub id: String,
    /// The event's type (`"payment.failed"`, …): which types are known is the lesson's business.
    #[serde(rename = "type")]
    pub kind: String,
    /// The order the event is about, as the envelope says.
    pub aggregate_id: String,
    pub payload: P,
    pub occurred_at: String,
}

/// What is wrong with an envelope, or with the ids of the event it carries. Each lesson has a
/// variant of its own error for each, with the same fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The field is empty, or only spaces.
    Empty { field: &'static str },
    /// The field is longer than [`MAX_ID_BYTES`].
    TooLong { field: &'static str, bytes: usize },
    /// The envelope and the payload name different orders.
    OrderMismatch {
        id: String,
        aggregate_id: String,
        order_id: String,
    },
}

impl<P> Wire<P> {
    /// Whether the envelope is about the order its payload names (`order_id`, which the caller
    /// reads from its own payload type). Neither one wins when they differ: the event is
    /// refused, since handling it for the wrong order is worse than not handling it at all.
    pub fn check_order(&self, order_id: &str) -> Result<(), Problem> {
        if self.aggregate_id == order_id {
            return Ok(());
        }
        Err(Problem::OrderMismatch {
            id: self.id.clone(),
            aggregate_id: self.aggregate_id.clone(),
            order_id: order_id.to_string(),
        })
    }
}

/// The first of the named `fields` that is empty or only spaces, in the order given.
pub fn check_present<const N: usize>(fields: [(&'static str, &str); N]) -> Result<(), Problem> {
    match fields
        .into_iter()
        .find(|(_, value)| value.trim().is_empty())
    {
        Some((field, _)) => Err(Problem::Empty { field }),
        None => Ok(()),
    }
}

/// The first of the named ids that is empty, or longer than [`MAX_ID_BYTES`]: each field is
/// checked for both before the next one is looked at.
pub fn check_ids<const N: usize>(fields: [(&'static str, &str); N]) -> Result<(), Problem> {
    for (field, value) in fields {
        check_present([(field, value)])?;
        if value.len() > MAX_ID_BYTES {
            return Err(Problem::TooLong {
                field,
                bytes: value.len(),
            });
        }
    }
    Ok(())
}

/// [`check_ids`] for a line a person typed into a by-hand feed, worded for them: `whose` is how
/// the message names the line ("the line's", "the event's"), `each` what every such line is
/// ("credit").
pub fn check_typed_ids<const N: usize>(
    whose: &str,
    each: &str,
    fields: [(&'static str, &str); N],
) -> Result<(), String> {
    for (field, value) in fields {
        if value.trim().is_empty() {
            return Err(format!("{whose} {field} is empty; every {each} needs one"));
        }
        if value.len() > MAX_ID_BYTES {
            return Err(format!(
                "{whose} {field} is {} bytes long; the workbook takes ids of at most \
                 {MAX_ID_BYTES} bytes",
                value.len()
            ));
        }
    }
    Ok(())
}

/// Writes `From<Problem>` for a lesson's error enum, so that `?` works on the checks above:
/// `kit::from_problem!(EventError);`. The enum needs `Empty`, `TooLong` and `OrderMismatch`
/// variants with [`Problem`]'s fields; their messages are its own (the chapters quote them).
/// A macro because the impl is the same in every lesson, to the letter, and only the type
/// differs.
#[macro_export]
macro_rules! from_problem {
    ($error:ident) => {
        impl From<$crate::envelope::Problem> for $error {
            fn from(problem: $crate::envelope::Problem) -> $error {
                use $crate::envelope::Problem;
                match problem {
                    Problem::Empty { field } => $error::Empty { field },
                    Problem::TooLong { field, bytes } => $error::TooLong { field, bytes },
                    Problem::OrderMismatch {
                        id,
                        aggregate_id,
                        order_id,
                    } => $error::OrderMismatch {
                        id,
                        aggregate_id,
                        order_id,
                    },
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Payload {
        order_id: String,
    }

    const EVENT: &str = r#"{"id":"evt-1","type":"order.cancelled","aggregate_id":"ord-1",
        "payload":{"order_id":"ord-1"},"occurred_at":"2026-07-14T09:15:40Z"}"#;

    fn parse(json: &str) -> Result<Wire<Payload>, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn an_envelope_parses_with_its_payload() {
        let wire = parse(EVENT).unwrap();
        assert_eq!(
            (
                wire.id.as_str(),
                wire.kind.as_str(),
                wire.aggregate_id.as_str()
            ),
            ("evt-1", "order.cancelled", "ord-1")
        );
        assert_eq!(wire.payload.order_id, "ord-1");
        assert_eq!(wire.occurred_at, "2026-07-14T09:15:40Z");
        assert_eq!(wire.check_order(&wire.payload.order_id), Ok(()));
    }

    #[test]
    fn serdes_messages_are_those_the_lessons_always_printed() {
        let extra = parse(&EVENT.replace(r#""id":"evt-1","#, r#""id":"evt-1","key":1,"#));
        assert!(extra.unwrap_err().starts_with(
            "unknown field `key`, expected one of `id`, `type`, `aggregate_id`, `payload`, \
             `occurred_at`"
        ));
        let extra = parse(&EVENT.replace(r#""ord-1"}"#, r#""ord-1","sku":"mug"}"#));
        assert!(extra.unwrap_err().starts_with("unknown field `sku`"));
        assert!(parse("[]").unwrap_err().contains("expected struct Wire"));
    }

    #[test]
    fn an_envelope_about_another_order_is_refused_with_both_names() {
        let wire = parse(&EVENT.replace(r#""aggregate_id":"ord-1""#, r#""aggregate_id":"ord-2""#))
            .unwrap();
        assert_eq!(
            wire.check_order(&wire.payload.order_id),
            Err(Problem::OrderMismatch {
                id: "evt-1".into(),
                aggregate_id: "ord-2".into(),
                order_id: "ord-1".into(),
            })
        );
    }

    #[test]
    fn ids_are_checked_field_by_field() {
        let long = "x".repeat(MAX_ID_BYTES + 1);
        assert_eq!(check_ids([("id", "evt-1"), ("order_id", "ord-1")]), Ok(()));
        assert_eq!(
            check_ids([("id", &"x".repeat(MAX_ID_BYTES)), ("order_id", "ord-1")]),
            Ok(())
        );
        assert_eq!(
            check_ids([("id", " "), ("order_id", &long)]),
            Err(Problem::Empty { field: "id" })
        );
        // The first field's length is a problem before the second field's absence.
        assert_eq!(
            check_ids([("id", &long), ("order_id", "")]),
            Err(Problem::TooLong {
                field: "id",
                bytes: MAX_ID_BYTES + 1
            })
        );
        // Only emptiness, however long: for fields that are not ids, like `occurred_at`.
        assert_eq!(
            check_present([("id", &long), ("order_id", "")]),
            Err(Problem::Empty { field: "order_id" })
        );
    }
}
