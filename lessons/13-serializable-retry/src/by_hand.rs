//! `cargo workbook deliver 13`: authorizations as JSON lines, through lesson 13's handler,
//! against the development database.
//!
//! Two kinds of line. An `authorization.requested` goes to the handler, exactly as the tests
//! deliver it. A `card.issued` sets the stage: the customer (with its shared limit, kept from
//! the first line that names it) and one of its cards, inserted so that a repeated line
//! changes nothing:
//! `{"id": "iss-1", "type": "card.issued", "aggregate_id": "cus-1", "payload": {"customer_id":
//! "cus-1", "card_id": "card-1", "limit_cents": 10000}, "occurred_at": "…"}`.
//! Each delivery reports the customer's spending and decisions, and how many attempts it took.

use std::process::ExitCode;

use kit::envelope::Wire;
use serde::Deserialize;
use sqlx::PgPool;

use crate::{Authorization, Handler, Subject};

/// One line of input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardLine {
    Issued {
        customer_id: String,
        card_id: String,
        limit_cents: i64,
    },
    Authorize(Authorization),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IssuedPayload {
    customer_id: String,
    card_id: String,
    limit_cents: i64,
}

impl CardLine {
    /// Reads one line, or says what is wrong with it.
    pub fn from_json(line: &str) -> Result<CardLine, String> {
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("it is not valid JSON ({e})"))?;
        if value.get("type").and_then(|kind| kind.as_str()) != Some("card.issued") {
            return (Authorization::from_json(line))
                .map(CardLine::Authorize)
                .map_err(|e| e.to_string());
        }
        let wire: Wire<IssuedPayload> = serde_json::from_str(line).map_err(|e| {
            format!(
                "it is not a card.issued event ({e}); expected an object like {{\"id\": \
                 \"iss-1\", \"type\": \"card.issued\", \"aggregate_id\": \"cus-1\", \
                 \"payload\": {{\"customer_id\": \"cus-1\", \"card_id\": \"card-1\", \
                 \"limit_cents\": 10000}}, \"occurred_at\": \"2026-07-14T09:00:00Z\"}}"
            )
        })?;
        kit::envelope::check_typed_ids(
            "the event's",
            "card.issued",
            [
                ("id", &wire.id),
                ("customer_id", &wire.payload.customer_id),
                ("card_id", &wire.payload.card_id),
                ("occurred_at", &wire.occurred_at),
            ],
        )?;
        if wire.aggregate_id != wire.payload.customer_id {
            return Err(format!(
                "event {} is about customer {:?} but its payload names customer {:?}; refusing \
                 to guess which one it means",
                wire.id, wire.aggregate_id, wire.payload.customer_id
            ));
        }
        if wire.payload.limit_cents < 0 {
            return Err(format!(
                "the limit is {} cents; a limit is zero or more",
                wire.payload.limit_cents
            ));
        }
        Ok(CardLine::Issued {
            customer_id: wire.payload.customer_id,
            card_id: wire.payload.card_id,
            limit_cents: wire.payload.limit_cents,
        })
    }
}

/// Lesson 13's lines, handed to its handler.
pub struct CardFeed<H> {
    handler: H,
}

impl<H: Handler> kit::deliver::Feed for CardFeed<H> {
    type Event = CardLine;

    fn parse(&self, line: &str) -> Result<CardLine, String> {
        CardLine::from_json(line)
    }

    async fn deliver(&self, pool: &PgPool, line: CardLine) -> Result<String, String> {
        let describe = |e: sqlx::Error| kit::describe_sqlx(&e);
        let (customer_id, done) = match line {
            CardLine::Issued {
                customer_id,
                card_id,
                limit_cents,
            } => {
                let mut tx = pool.begin().await.map_err(describe)?;
                sqlx::query(
                    "INSERT INTO customers (id, limit_cents) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                )
                .bind(&customer_id)
                .bind(limit_cents)
                .execute(&mut *tx)
                .await
                .map_err(describe)?;
                let issued = sqlx::query(
                    "INSERT INTO cards (id, customer_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                )
                .bind(&card_id)
                .bind(&customer_id)
                .execute(&mut *tx)
                .await
                .map_err(describe)?;
                tx.commit().await.map_err(describe)?;
                let done = match issued.rows_affected() {
                    0 => format!("card.issued: {card_id} was issued before; nothing changed"),
                    _ => format!("card.issued: {card_id} for {customer_id}"),
                };
                (customer_id, done)
            }
            CardLine::Authorize(event) => {
                let handled = (self.handler.call(pool.clone(), event.clone()).await)
                    .map_err(|error| kit::describe_sqlx(&error))?;
                let done = format!(
                    "{} ({} cents on {}): {:?} after {} attempt(s)",
                    event.id(),
                    event.amount_cents(),
                    event.card_id(),
                    handled.outcome,
                    handled.attempts
                );
                (event.customer_id().to_string(), done)
            }
        };
        // The delivery happened; a report that cannot be read says so, and is not the
        // handler's failure.
        let after = customer_after(pool, &customer_id)
            .await
            .unwrap_or_else(|e| format!("(the customer could not be read back: {e})"));
        Ok(format!("{done}. {after}"))
    }
}

/// The customer's limit, spending and decisions, in a line.
async fn customer_after(pool: &PgPool, customer_id: &str) -> Result<String, String> {
    let describe = |e: sqlx::Error| kit::describe_sqlx(&e);
    let customer: Option<(i64, i64)> = sqlx::query_as(
        "SELECT c.limit_cents, coalesce((SELECT sum(spent_cents) FROM cards
                                          WHERE customer_id = c.id), 0)::bigint
           FROM customers c WHERE c.id = $1",
    )
    .bind(customer_id)
    .fetch_optional(pool)
    .await
    .map_err(describe)?;
    let Some((limit, spent)) = customer else {
        return Ok(format!(
            "{customer_id} has no cards: deliver a card.issued for it first"
        ));
    };
    let decided: Vec<(String, String)> = sqlx::query_as(
        "SELECT event_id, decision FROM authorizations WHERE customer_id = $1 ORDER BY event_id",
    )
    .bind(customer_id)
    .fetch_all(pool)
    .await
    .map_err(describe)?;
    let decided: Vec<String> = (decided.iter())
        .map(|(event, decision)| format!("{event} {decision}"))
        .collect();
    Ok(format!(
        "{customer_id} has spent {spent} of {limit} cents; decisions: {}",
        if decided.is_empty() {
            "none".to_string()
        } else {
            decided.join(", ")
        }
    ))
}

/// The `deliver` binary of lesson 13's exercise and solution.
pub fn main<H: Handler>(subject: Subject<H>) -> ExitCode {
    kit::deliver::main(
        CardFeed {
            handler: subject.handler,
        },
        subject.schema,
    )
}

#[cfg(test)]
mod tests {
    use kit::deliver::Feed;

    use super::*;
    use crate::{Handled, Outcome};

    const ISSUED: &str = r#"{"id":"iss-1","type":"card.issued","aggregate_id":"cus-1","payload":{"customer_id":"cus-1","card_id":"card-1","limit_cents":10000},"occurred_at":"2026-07-14T09:00:00Z"}"#;
    const AUTH: &str = r#"{"id":"auth-1","type":"authorization.requested","aggregate_id":"cus-1","payload":{"customer_id":"cus-1","card_id":"card-1","amount_cents":6000},"occurred_at":"2026-07-14T09:15:40Z"}"#;

    fn feed() -> CardFeed<impl Handler> {
        CardFeed {
            handler: |_: PgPool, _: Authorization| async {
                Ok(Handled {
                    outcome: Outcome::Approved,
                    attempts: 1,
                })
            },
        }
    }

    /// Every way a line can be wrong gets a sentence that names the problem.
    #[test]
    fn each_bad_line_is_refused_with_its_problem() {
        let long_id = "x".repeat(201);
        let cases: Vec<(String, &str)> = vec![
            ("{\"id\": \"auth-1\",".into(), "not valid JSON"),
            ("[1, 2]".into(), "not valid JSON for an authorization"),
            (
                AUTH.replace("authorization.requested", "authorization.reversed"),
                "type \"authorization.reversed\"",
            ),
            (
                AUTH.replace(r#""id":"auth-1""#, r#""id":"""#),
                "id is empty",
            ),
            (AUTH.replace("auth-1", &long_id), "201 bytes long"),
            (
                AUTH.replace(r#""customer_id":"cus-1""#, r#""customer_id":"cus-2""#),
                "payload names customer \"cus-2\"",
            ),
            (AUTH.replace("6000", "-5"), "positive amount"),
            (
                AUTH.replace("6000", "\"60.00\""),
                "invalid type: string \"60.00\", expected i64",
            ),
            (
                ISSUED.replace(r#","limit_cents":10000"#, ""),
                "missing field `limit_cents`",
            ),
            (ISSUED.replace("10000", "-1"), "zero or more"),
            (
                ISSUED.replace(r#""card_id":"card-1""#, r#""card_id":" ""#),
                "card_id is empty",
            ),
            (
                ISSUED.replace(r#""customer_id":"cus-1""#, r#""customer_id":"cus-2""#),
                "payload names customer \"cus-2\"",
            ),
        ];
        kit::deliver::assert_each_refused(cases, |line| feed().parse(line));
    }

    /// A card.issued line sets the stage once, however often it is delivered, and each line's
    /// report reads the customer back.
    #[tokio::test]
    async fn a_card_is_issued_once_and_reported() {
        let schema = kit::Schema::from_dirs([crate::__private::BASE_MIGRATIONS]);
        let db = kit::TestDatabase::create(&schema).await.unwrap();
        let pool = db.pool(1).await.unwrap();
        let input = format!("{ISSUED}\n{ISSUED}\n{AUTH}\n");
        let mut out = Vec::new();
        let delivered = kit::deliver::run(&feed(), &pool, input.as_bytes(), &mut out).await;
        let said = String::from_utf8(out).unwrap();
        assert_eq!(delivered.ok(), Some(3), "{said}");
        assert!(said.contains("card.issued: card-1 for cus-1"), "{said}");
        assert!(said.contains("card-1 was issued before"), "{said}");
        assert!(
            said.contains("auth-1 (6000 cents on card-1): Approved after 1 attempt(s)"),
            "{said}"
        );
        assert!(said.contains("cus-1 has spent 0 of 10000 cents"), "{said}");
    }

    /// The lines shipped for delivering by hand are all lines the feed accepts.
    #[test]
    fn the_shipped_events_parse() {
        for line in include_str!("../events/two-cards.jsonl").lines() {
            assert!(feed().parse(line).is_ok(), "{line}");
        }
    }
}
