//! `cargo workbook deliver 08`: announcements as JSON lines, carried through the pipeline by
//! lesson 08's relay and consumer. Each line, `{"event_id": "ord-1:order", "order_id": "ord-1"}`,
//! is committed to the producer's outbox; then relays pass over the outbox until they find
//! nothing, and the consumer handles every message the broker received meanwhile. The report
//! says what the broker and the warehouse hold for the order.

use std::process::ExitCode;

use serde::Deserialize;
use sqlx::PgPool;

use crate::{Done, Handler, Message, Relay, Step, Subject};

/// One announcement, as the producer writes it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Announcement {
    event_id: String,
    order_id: String,
}

impl Announcement {
    /// Reads one line, or says what is wrong with it.
    pub fn from_json(line: &str) -> Result<Announcement, String> {
        let announcement: Announcement = serde_json::from_str(line).map_err(|e| {
            format!(
                "it is not an announcement ({e}); expected an object like {{\"event_id\": \
                 \"ord-1:order\", \"order_id\": \"ord-1\"}}"
            )
        })?;
        kit::envelope::check_typed_ids(
            "the line's",
            "announcement",
            [
                ("event_id", &announcement.event_id),
                ("order_id", &announcement.order_id),
            ],
        )?;
        Ok(announcement)
    }
}

/// Lesson 08's lines, carried through the pipeline.
pub struct PipelineFeed<H> {
    handler: H,
}

impl<H> PipelineFeed<H> {
    pub fn new(handler: H) -> Self {
        PipelineFeed { handler }
    }
}

impl<H: Handler> kit::deliver::Feed for PipelineFeed<H> {
    type Event = Announcement;

    fn parse(&self, line: &str) -> Result<Announcement, String> {
        Announcement::from_json(line)
    }

    async fn deliver(&self, pool: &PgPool, announcement: Announcement) -> Result<String, String> {
        let describe = |e: sqlx::Error| kit::describe_sqlx(&e);
        let payload = serde_json::json!({ "order_id": announcement.order_id }).to_string();
        let since: i64 =
            sqlx::query_scalar("SELECT COALESCE(max(position), 0) FROM broker.messages")
                .fetch_one(pool)
                .await
                .map_err(describe)?;
        // The producer announces each event once: a line fed again (after a rejected line,
        // say) finds its row and writes nothing, as a redelivery should.
        let existing: Option<i64> =
            sqlx::query_scalar("SELECT min(id) FROM outbox_written WHERE event_id = $1")
                .bind(&announcement.event_id)
                .fetch_one(pool)
                .await
                .map_err(describe)?;
        let (id, written) = match existing {
            Some(id) => (id, "is in the outbox already, as row"),
            None => {
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO outbox (event_id, payload) VALUES ($1, $2) RETURNING id",
                )
                .bind(&announcement.event_id)
                .bind(&payload)
                .fetch_one(pool)
                .await
                .map_err(describe)?;
                (id, "written as outbox row")
            }
        };
        let failed = |what: &str, error: sqlx::Error| {
            format!(
                "{} is outbox row {id}, and {what} failed: {}",
                announcement.event_id,
                kit::describe_sqlx(&error)
            )
        };
        let mut published = 0;
        loop {
            match self
                .handler
                .call(pool.clone(), Step::Relay(Relay::new(10)))
                .await
            {
                Ok(Done::Relayed(0)) | Ok(Done::Consumed(_)) => break,
                Ok(Done::Relayed(n)) => published += n,
                Err(error) => return Err(failed("the relay", error)),
            }
        }
        let messages: Vec<(i64, String, String)> = sqlx::query_as(
            "SELECT outbox_id, event_id, payload FROM broker.messages
              WHERE position > $1 ORDER BY position",
        )
        .bind(since)
        .fetch_all(pool)
        .await
        .map_err(describe)?;
        let mut outcomes = Vec::new();
        for (outbox_id, event_id, payload) in messages {
            let message = Message {
                outbox_id,
                event_id,
                payload,
            };
            match self
                .handler
                .call(pool.clone(), Step::Consume(message))
                .await
            {
                Ok(Done::Consumed(outcome)) => {
                    outcomes.push(format!("row {outbox_id}: {outcome:?}"))
                }
                Ok(other) => outcomes.push(format!("row {outbox_id}: {other:?}")),
                Err(error) => return Err(failed("the consumer", error)),
            }
        }
        let (shipments, copies): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT count(*) FROM shipments WHERE order_id = $1),
                    (SELECT count(*) FROM broker.messages WHERE outbox_id = $2)",
        )
        .bind(&announcement.order_id)
        .bind(id)
        .fetch_one(pool)
        .await
        .map_err(describe)?;
        Ok(format!(
            "{} {written} {id}; the relay published {published} row(s); the consumer: {}. The \
             broker holds row {id} {copies} time(s); {} has {shipments} shipment(s)",
            announcement.event_id,
            if outcomes.is_empty() {
                "nothing new".to_string()
            } else {
                outcomes.join(", ")
            },
            announcement.order_id
        ))
    }
}

/// The `deliver` binary of lesson 08's exercise and solution.
pub fn main<H: Handler>(subject: Subject<H>) -> ExitCode {
    kit::deliver::main(PipelineFeed::new(subject.handler), subject.schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bad_line_is_refused_with_its_problem() {
        let long = "x".repeat(201);
        let cases: Vec<(String, &str)> = vec![
            ("{\"event_id\":".into(), "not an announcement"),
            (r#"{"event_id":"e"}"#.into(), "missing field `order_id`"),
            (
                r#"{"event_id":"","order_id":"o"}"#.into(),
                "event_id is empty",
            ),
            (
                format!(r#"{{"event_id":"e","order_id":"{long}"}}"#),
                "201 bytes long",
            ),
            (
                r#"{"event_id":"e","order_id":"o","x":1}"#.into(),
                "unknown field `x`",
            ),
            (
                r#"{"event_id":7,"order_id":"o"}"#.into(),
                "invalid type: integer `7`",
            ),
        ];
        kit::deliver::assert_each_refused(cases, Announcement::from_json);
        assert!(
            Announcement::from_json(r#"{"event_id":"ord-1:order","order_id":"ord-1"}"#).is_ok()
        );
    }

    /// The lines shipped for delivering by hand are all lines the feed accepts.
    #[test]
    fn the_shipped_events_parse() {
        let events = include_str!("../events/two-announcements.jsonl");
        for line in events.lines() {
            assert!(Announcement::from_json(line).is_ok(), "{line}");
        }
    }
}
