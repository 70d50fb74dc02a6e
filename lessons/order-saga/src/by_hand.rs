//! `cargo workbook deliver 02` … `05`: the saga's events as JSON lines, through the lesson's
//! handler, against the development database.
//!
//! Two kinds of line. A payment result (`payment.succeeded`, `payment.failed`) goes to the
//! handler, exactly as the tests deliver it. An `order.created` sets the stage: it is what the
//! order service itself does when a customer orders, an insert keyed on the order id, so a
//! redelivered one changes nothing.

use std::process::ExitCode;

use kit::envelope::Wire;
use serde::Deserialize;
use serde_json::Value;
use sqlx::PgPool;

use crate::{Handler, PaymentEvent, Subject};

/// One line of input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SagaEvent {
    OrderCreated { order_id: String, amount_cents: i64 },
    Payment(PaymentEvent),
}

const TYPES: &str = "order.created, payment.succeeded or payment.failed";

impl SagaEvent {
    /// Reads one line, or says what is wrong with it.
    pub fn from_json(line: &str) -> Result<SagaEvent, String> {
        let value: Value =
            serde_json::from_str(line).map_err(|e| format!("it is not valid JSON ({e})"))?;
        let Some(object) = value.as_object() else {
            return Err("it is JSON, but not an object: each line is one event, {…}".into());
        };
        match object.get("type").map(|kind| kind.as_str()) {
            None => Err(format!(
                "the event has no \"type\"; it must be one of {TYPES}"
            )),
            Some(None) => Err(format!(
                "the event's \"type\" is not a string; it must be one of {TYPES}"
            )),
            Some(Some("order.created")) => order_created(line),
            Some(Some("payment.succeeded" | "payment.failed")) => PaymentEvent::from_json(line)
                .map(SagaEvent::Payment)
                .map_err(|e| e.to_string()),
            Some(Some(other)) => Err(format!(
                "the event's type is {other:?}; the saga's lessons take {TYPES}"
            )),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OrderCreatedPayload {
    order_id: String,
    amount_cents: i64,
}

fn order_created(line: &str) -> Result<SagaEvent, String> {
    let wire: Wire<OrderCreatedPayload> = serde_json::from_str(line).map_err(|e| {
        format!(
            "it is not an order.created event ({e}); expected an object like {{\"id\": \"ord-1\", \
             \"type\": \"order.created\", \"aggregate_id\": \"ord-1\", \"payload\": {{\"order_id\": \
             \"ord-1\", \"amount_cents\": 2598}}, \"occurred_at\": \"2026-07-14T09:15:00Z\"}}"
        )
    })?;
    kit::envelope::check_typed_ids(
        "the event's",
        "order.created",
        [
            ("id", &wire.id),
            ("aggregate_id", &wire.aggregate_id),
            ("occurred_at", &wire.occurred_at),
        ],
    )?;
    if wire.aggregate_id != wire.payload.order_id {
        return Err(format!(
            "event {} is about order {:?} but its payload names order {:?}; refusing to guess \
             which one it means",
            wire.id, wire.aggregate_id, wire.payload.order_id
        ));
    }
    if wire.payload.amount_cents <= 0 {
        return Err(format!(
            "order {} is for {} cents; an order's amount must be positive",
            wire.aggregate_id, wire.payload.amount_cents
        ));
    }
    Ok(SagaEvent::OrderCreated {
        order_id: wire.aggregate_id,
        amount_cents: wire.payload.amount_cents,
    })
}

/// The saga's lines, handed to a lesson's handler.
pub struct SagaFeed<H> {
    handler: H,
}

impl<H> SagaFeed<H> {
    pub fn new(handler: H) -> Self {
        SagaFeed { handler }
    }
}

impl<H: Handler> kit::deliver::Feed for SagaFeed<H> {
    type Event = SagaEvent;

    fn parse(&self, line: &str) -> Result<SagaEvent, String> {
        SagaEvent::from_json(line)
    }

    async fn deliver(&self, pool: &PgPool, event: SagaEvent) -> Result<String, String> {
        match event {
            SagaEvent::OrderCreated {
                order_id,
                amount_cents,
            } => {
                let created = sqlx::query(
                    "INSERT INTO orders (id, amount_cents) VALUES ($1, $2) \
                     ON CONFLICT (id) DO NOTHING",
                )
                .bind(&order_id)
                .bind(amount_cents)
                .execute(pool)
                .await
                .map_err(|e| kit::describe_sqlx(&e))?;
                if created.rows_affected() == 1 {
                    return Ok(format!(
                        "order.created {order_id}: a pending order for {amount_cents} cents"
                    ));
                }
                let (status, existing): (String, i64) =
                    sqlx::query_as("SELECT status, amount_cents FROM orders WHERE id = $1")
                        .bind(&order_id)
                        .fetch_one(pool)
                        .await
                        .map_err(|e| kit::describe_sqlx(&e))?;
                let differs = if existing == amount_cents {
                    String::new()
                } else {
                    format!(" (it is for {existing} cents; this copy says {amount_cents})")
                };
                Ok(format!(
                    "order.created {order_id}: the order exists already{differs}, and is \
                     {status}: nothing changed"
                ))
            }
            SagaEvent::Payment(event) => {
                let outcome = match self.handler.call(pool.clone(), event.clone()).await {
                    Ok(outcome) => outcome,
                    Err(error) => {
                        let about = kit::deliver::Subject {
                            table: "orders",
                            noun: "order",
                            id: event.order_id(),
                            advice: "deliver its order.created first".into(),
                        };
                        return Err(kit::deliver::handler_failed(pool, error, about).await);
                    }
                };
                // The delivery happened; a report that cannot be read says so, and is not
                // the handler's failure.
                let after = order_after(pool, &event)
                    .await
                    .unwrap_or_else(|e| format!("(the order could not be read back: {e})"));
                Ok(format!(
                    "{} {} ({} cents for {}): {outcome:?}. {after}",
                    event.kind(),
                    event.id(),
                    event.amount_cents(),
                    event.order_id()
                ))
            }
        }
    }
}

/// The order, its records and its outbox after a delivery, read in a line.
async fn order_after(pool: &PgPool, event: &PaymentEvent) -> Result<String, String> {
    let describe = |e: sqlx::Error| kit::describe_sqlx(&e);
    let (status, paid, amount): (String, i64, i64) =
        sqlx::query_as("SELECT status, paid_cents, amount_cents FROM orders WHERE id = $1")
            .bind(event.order_id())
            .fetch_one(pool)
            .await
            .map_err(describe)?;
    let records: i64 =
        sqlx::query_scalar("SELECT count(*) FROM processed_events WHERE event_id = $1")
            .bind(event.id())
            .fetch_one(pool)
            .await
            .map_err(describe)?;
    let outbox: Vec<String> = sqlx::query_scalar(
        "SELECT type FROM outbox WHERE aggregate_id = $1 ORDER BY created_at, id",
    )
    .bind(event.order_id())
    .fetch_all(pool)
    .await
    .map_err(describe)?;
    let outbox = if outbox.is_empty() {
        "none".to_string()
    } else {
        outbox.join(", ")
    };
    Ok(format!(
        "{} is {status}, paid {paid} of {amount} cents; {records} processed_events row(s) for {}; \
         outbox rows for {}: {outbox}",
        event.order_id(),
        event.id(),
        event.order_id()
    ))
}

/// The `deliver` binary of every saga exercise and solution.
pub fn main<H: Handler>(subject: Subject<H>) -> ExitCode {
    kit::deliver::main(
        SagaFeed {
            handler: subject.handler,
        },
        subject.schema,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const CREATED: &str = r#"{"id":"ord-1","type":"order.created","aggregate_id":"ord-1","payload":{"order_id":"ord-1","amount_cents":2598},"occurred_at":"2026-07-14T09:15:00Z"}"#;
    const PAID: &str = r#"{"id":"ord-1:payment","type":"payment.succeeded","aggregate_id":"ord-1","payload":{"order_id":"ord-1","amount_cents":2598},"occurred_at":"2026-07-14T09:15:40Z"}"#;

    #[test]
    fn both_kinds_of_line_parse() {
        assert_eq!(
            SagaEvent::from_json(CREATED),
            Ok(SagaEvent::OrderCreated {
                order_id: "ord-1".into(),
                amount_cents: 2598
            })
        );
        assert!(matches!(
            SagaEvent::from_json(PAID),
            Ok(SagaEvent::Payment(_))
        ));
    }

    /// Every way a line can be wrong gets a sentence that names the problem.
    #[test]
    fn each_bad_line_is_refused_with_its_problem() {
        let long_id = "x".repeat(201);
        let cases: Vec<(String, &str)> = vec![
            (
                "{\"id\": \"ord-1\",".into(),
                "not valid JSON (EOF while parsing",
            ),
            ("[1, 2]".into(), "not an object"),
            (
                PAID.replace(r#""type":"payment.succeeded","#, ""),
                "has no \"type\"",
            ),
            (
                PAID.replace(r#""payment.succeeded""#, "7"),
                "\"type\" is not a string",
            ),
            (
                PAID.replace("payment.succeeded", "payment.refunded"),
                "type is \"payment.refunded\"",
            ),
            (
                PAID.replace(r#""id":"ord-1:payment","#, ""),
                "missing field `id`",
            ),
            (
                PAID.replace(r#""id":"ord-1:payment""#, r#""id":"""#),
                "id is empty",
            ),
            (
                CREATED.replace(r#""id":"ord-1""#, r#""id":" ""#),
                "id is empty",
            ),
            (PAID.replace("ord-1:payment", &long_id), "201 bytes long"),
            (
                CREATED.replace(
                    r#""aggregate_id":"ord-1""#,
                    &format!(r#""aggregate_id":"{long_id}""#),
                ),
                "201 bytes long",
            ),
            (
                PAID.replace("2598", r#""2598""#),
                "invalid type: string \"2598\", expected i64",
            ),
            (
                CREATED.replace("2598", "25.98"),
                "invalid type: floating point",
            ),
            (
                PAID.replace(r#""order_id":"ord-1""#, r#""order_id":"ord-2""#),
                "payload names order \"ord-2\"",
            ),
            (
                CREATED.replace(r#""order_id":"ord-1""#, r#""order_id":"ord-2""#),
                "payload names order \"ord-2\"",
            ),
            (CREATED.replace("2598", "0"), "must be positive"),
            (
                CREATED.replace("2026-07-14T09:15:00Z", ""),
                "occurred_at is empty",
            ),
            (
                PAID.replace("2598}", r#"2598,"currency":"EUR"}"#),
                "unknown field `currency`",
            ),
        ];
        kit::deliver::assert_each_refused(cases, SagaEvent::from_json);
    }
}
