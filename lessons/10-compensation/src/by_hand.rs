//! `cargo workbook deliver 10`: the inventory's events as JSON lines, through lesson 10's
//! handler, against the development database.
//!
//! Two kinds of line. An event that settles a reservation (`payment.failed`,
//! `order.cancelled`, `payment.succeeded`) goes to the handler, exactly as the tests deliver
//! it. A `stock.reserved` sets the stage: it is what the inventory itself did when the order
//! was created, an insert keyed on the order id, so a repeated one changes nothing:
//! `{"id": "evt-res-ord-1", "type": "stock.reserved", "aggregate_id": "ord-1", "payload":
//! {"order_id": "ord-1", "sku": "mug", "quantity": 2}, "occurred_at": "…"}`.
//! Each delivery reports what the reservation, its stock and the outbox then hold, so a
//! release that happens twice shows at once.

use std::process::ExitCode;

use kit::envelope::Wire;
use serde::Deserialize;
use sqlx::PgPool;

use crate::{Handler, ReservationEvent, Subject};

/// One line of input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InventoryLine {
    Reserved {
        order_id: String,
        sku: String,
        quantity: i32,
    },
    Settle(ReservationEvent),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReservedPayload {
    order_id: String,
    sku: String,
    quantity: i32,
}

impl InventoryLine {
    /// Reads one line, or says what is wrong with it.
    pub fn from_json(line: &str) -> Result<InventoryLine, String> {
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("it is not valid JSON ({e})"))?;
        if value.get("type").and_then(|kind| kind.as_str()) != Some("stock.reserved") {
            return (ReservationEvent::from_json(line))
                .map(InventoryLine::Settle)
                .map_err(|e| e.to_string());
        }
        let wire: Wire<ReservedPayload> = serde_json::from_str(line).map_err(|e| {
            format!(
                "it is not a stock.reserved event ({e}); expected an object like {{\"id\": \
                 \"evt-res-ord-1\", \"type\": \"stock.reserved\", \"aggregate_id\": \"ord-1\", \
                 \"payload\": {{\"order_id\": \"ord-1\", \"sku\": \"mug\", \"quantity\": 2}}, \
                 \"occurred_at\": \"2026-07-14T09:15:00Z\"}}"
            )
        })?;
        kit::envelope::check_typed_ids(
            "the event's",
            "stock.reserved",
            [
                ("id", &wire.id),
                ("order_id", &wire.payload.order_id),
                ("sku", &wire.payload.sku),
                ("occurred_at", &wire.occurred_at),
            ],
        )?;

        if wire.aggregate_id != wire.payload.order_id {
            return Err(format!(
                "event {} is about order {:?} but its payload names order {:?}; refusing to \
                 guess which one it means",
                wire.id, wire.aggregate_id, wire.payload.order_id
            ));
        }
        if wire.payload.quantity <= 0 {
            return Err(format!(
                "the reservation is for {} units; a reservation holds at least one",
                wire.payload.quantity
            ));
        }
        Ok(InventoryLine::Reserved {
            order_id: wire.payload.order_id,
            sku: wire.payload.sku,
            quantity: wire.payload.quantity,
        })
    }
}

/// Lesson 10's lines, handed to its handler.
pub struct InventoryFeed<H> {
    handler: H,
}

impl<H> InventoryFeed<H> {
    pub fn new(handler: H) -> Self {
        InventoryFeed { handler }
    }
}

impl<H: Handler> kit::deliver::Feed for InventoryFeed<H> {
    type Event = InventoryLine;

    fn parse(&self, line: &str) -> Result<InventoryLine, String> {
        InventoryLine::from_json(line)
    }

    async fn deliver(&self, pool: &PgPool, line: InventoryLine) -> Result<String, String> {
        let describe = |e: sqlx::Error| kit::describe_sqlx(&e);
        let (order_id, done) = match line {
            InventoryLine::Reserved {
                order_id,
                sku,
                quantity,
            } => {
                // The units left the shelf when they were reserved: a product first seen here
                // has none left over.
                let mut tx = pool.begin().await.map_err(describe)?;
                sqlx::query(
                    "INSERT INTO stock (sku, available) VALUES ($1, 0) ON CONFLICT DO NOTHING",
                )
                .bind(&sku)
                .execute(&mut *tx)
                .await
                .map_err(describe)?;
                let inserted = sqlx::query(
                    "INSERT INTO reservations (order_id, sku, quantity, status)
                     VALUES ($1, $2, $3, 'held') ON CONFLICT (order_id) DO NOTHING",
                )
                .bind(&order_id)
                .bind(&sku)
                .bind(quantity)
                .execute(&mut *tx)
                .await
                .map_err(describe)?;
                tx.commit().await.map_err(describe)?;
                let done = match inserted.rows_affected() {
                    0 => format!(
                        "stock.reserved for {order_id}: the order has a row already (reserved \
                         before, or released before it was reserved), so nothing was held"
                    ),
                    _ => format!("stock.reserved: {quantity} unit(s) of {sku} held for {order_id}"),
                };
                (order_id, done)
            }
            InventoryLine::Settle(event) => {
                let outcome = (self.handler.call(pool.clone(), event.clone()).await)
                    .map_err(|error| kit::describe_sqlx(&error))?;
                let done = format!(
                    "{} {} for {}: {outcome:?}",
                    event.kind().as_str(),
                    event.id(),
                    event.order_id()
                );
                (event.order_id().to_string(), done)
            }
        };
        // The delivery happened; a report that cannot be read says so, and is not the
        // handler's failure.
        let after = reservation_after(pool, &order_id)
            .await
            .unwrap_or_else(|e| format!("(the reservation could not be read back: {e})"));
        Ok(format!("{done}. {after}"))
    }
}

/// The reservation, its product's stock and the outbox for one order, read in a line.
async fn reservation_after(pool: &PgPool, order_id: &str) -> Result<String, String> {
    let describe = |e: sqlx::Error| kit::describe_sqlx(&e);
    // Each column may be NULL: a row that held nothing has no sku, so no stock either.
    type Row = (Option<String>, Option<i32>, String, Option<i32>);
    let reservation: Option<Row> = sqlx::query_as(
        "SELECT r.sku, r.quantity, r.status, s.available
           FROM reservations r LEFT JOIN stock s USING (sku) WHERE r.order_id = $1",
    )
    .bind(order_id)
    .fetch_optional(pool)
    .await
    .map_err(describe)?;
    let outbox: Vec<(String, String)> =
        sqlx::query_as("SELECT type, event_id FROM outbox WHERE aggregate_id = $1 ORDER BY id")
            .bind(order_id)
            .fetch_all(pool)
            .await
            .map_err(describe)?;
    let outbox: Vec<String> = (outbox.iter())
        .map(|(kind, id)| format!("{kind} {id}"))
        .collect();
    let outbox = if outbox.is_empty() {
        "none".to_string()
    } else {
        outbox.join(", ")
    };
    match reservation {
        None => Ok(format!(
            "{order_id} has no reservation: deliver its stock.reserved first"
        )),
        Some((Some(sku), Some(quantity), status, Some(available))) => Ok(format!(
            "Reservation of {order_id}: {quantity} unit(s) of {sku}, {status}; {sku} available: \
             {available}; outbox: {outbox}"
        )),
        Some((_, _, status, _)) => Ok(format!(
            "{order_id}'s row holds no units, {status}: a stock.reserved for it will hold \
             nothing; outbox: {outbox}"
        )),
    }
}

/// The `deliver` binary of lesson 10's exercise and solution.
pub fn main<H: Handler>(subject: Subject<H>) -> ExitCode {
    kit::deliver::main(
        InventoryFeed {
            handler: subject.handler,
        },
        subject.schema,
    )
}

#[cfg(test)]
mod tests {
    use kit::deliver::Feed;

    use super::*;

    const RESERVED: &str = r#"{"id":"evt-res-ord-1","type":"stock.reserved","aggregate_id":"ord-1","payload":{"order_id":"ord-1","sku":"mug","quantity":2},"occurred_at":"2026-07-14T09:15:00Z"}"#;
    const FAILED: &str = r#"{"id":"evt-failed-ord-1","type":"payment.failed","aggregate_id":"ord-1","payload":{"order_id":"ord-1"},"occurred_at":"2026-07-14T09:15:40Z"}"#;

    fn feed() -> InventoryFeed<impl Handler> {
        InventoryFeed {
            handler: |_: PgPool, _: ReservationEvent| async { Ok(crate::Outcome::Released) },
        }
    }

    #[test]
    fn both_kinds_of_line_are_read() {
        assert_eq!(
            feed().parse(RESERVED),
            Ok(InventoryLine::Reserved {
                order_id: "ord-1".into(),
                sku: "mug".into(),
                quantity: 2
            })
        );
        assert!(matches!(
            feed().parse(FAILED),
            Ok(InventoryLine::Settle(event)) if event.id() == "evt-failed-ord-1"
        ));
    }

    /// Every way a line can be wrong gets a sentence that names the problem.
    #[test]
    fn each_bad_line_is_refused_with_its_problem() {
        let long_id = "x".repeat(201);
        let cases: Vec<(String, &str)> = vec![
            ("{\"id\": \"evt-1\",".into(), "not valid JSON"),
            ("[1, 2]".into(), "not valid JSON for a reservation event"),
            (
                FAILED.replace(r#""type":"payment.failed","#, ""),
                "missing field `type`",
            ),
            (
                FAILED.replace("payment.failed", "payment.refunded"),
                "type \"payment.refunded\"",
            ),
            (
                FAILED.replace(r#""id":"evt-failed-ord-1""#, r#""id":"""#),
                "id is empty",
            ),
            (
                FAILED.replace("evt-failed-ord-1", &long_id),
                "201 bytes long",
            ),
            (
                FAILED.replace(r#""order_id":"ord-1""#, r#""order_id":"ord-2""#),
                "payload names order \"ord-2\"",
            ),
            (
                FAILED.replace("2026-07-14T09:15:40Z", ""),
                "occurred_at is empty",
            ),
            (
                FAILED.replace(
                    r#""order_id":"ord-1"}"#,
                    r#""order_id":"ord-1","sku":"mug"}"#,
                ),
                "unknown field `sku`",
            ),
            (
                RESERVED.replace(r#","quantity":2"#, ""),
                "missing field `quantity`",
            ),
            (
                RESERVED.replace(r#""quantity":2"#, r#""quantity":"2""#),
                "invalid type: string \"2\", expected i32",
            ),
            (
                RESERVED.replace(r#""quantity":2"#, r#""quantity":0"#),
                "at least one",
            ),
            (
                RESERVED.replace(r#""sku":"mug""#, r#""sku":" ""#),
                "sku is empty",
            ),
            (
                RESERVED.replace("evt-res-ord-1", &long_id),
                "201 bytes long",
            ),
            (
                RESERVED.replace(r#""order_id":"ord-1""#, r#""order_id":"ord-2""#),
                "payload names order \"ord-2\"",
            ),
            (
                RESERVED.replace("2026-07-14T09:15:00Z", " "),
                "occurred_at is empty",
            ),
            (
                RESERVED.replace(r#""quantity":2"#, r#""quantity":2,"price":5"#),
                "unknown field `price`",
            ),
        ];
        kit::deliver::assert_each_refused(cases, |line| feed().parse(line));
    }

    /// A stock.reserved line sets the stage once, however often it is delivered, and each
    /// line's report reads the reservation back.
    #[tokio::test]
    async fn a_reservation_is_set_up_once_and_reported() {
        let schema = kit::Schema::from_dirs([crate::__private::BASE_MIGRATIONS]);
        let db = kit::TestDatabase::create(&schema).await.unwrap();
        let pool = db.pool(1).await.unwrap();
        let input = format!("{RESERVED}\n{RESERVED}\n{FAILED}\n");
        let mut out = Vec::new();
        let delivered = kit::deliver::run(&feed(), &pool, input.as_bytes(), &mut out).await;
        let said = String::from_utf8(out).unwrap();
        assert_eq!(delivered.ok(), Some(3), "{said}");
        assert!(said.contains("2 unit(s) of mug held for ord-1"), "{said}");
        assert!(said.contains("the order has a row already"), "{said}");
        assert!(
            said.contains("payment.failed evt-failed-ord-1 for ord-1: Released"),
            "{said}"
        );
        assert!(
            said.contains("Reservation of ord-1: 2 unit(s) of mug, held; mug available: 0"),
            "{said}"
        );
    }

    /// The lines shipped for delivering by hand are all lines the feed accepts.
    #[test]
    fn the_shipped_events_parse() {
        let events = [
            include_str!("../events/failed-and-cancelled.jsonl"),
            include_str!("../events/cancelled-first.jsonl"),
        ];
        for line in events.iter().flat_map(|file| file.lines()) {
            assert!(feed().parse(line).is_ok(), "{line}");
        }
    }
}
