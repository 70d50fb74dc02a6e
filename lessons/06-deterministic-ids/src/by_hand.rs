//! `cargo workbook deliver 06`: order.created events as JSON lines, through lesson 06's
//! handler, against the development database.
//!
//! One kind of line, the one the payment step consumes:
//! `{"id": "evt-ord-1", "type": "order.created", "aggregate_id": "ord-1", "payload":
//! {"order_id": "ord-1", "amount_cents": 2598, "card": "tok_visa"}, "occurred_at": "…"}`.
//! Each delivery reports what the card network, the step's record and its outbox then hold for
//! the order, so a redelivery that charges again shows at once.

use std::process::ExitCode;

use sqlx::PgPool;

use crate::{Handler, OrderCreated, Subject};

/// Lesson 06's lines, handed to its handler.
pub struct PaymentFeed<H> {
    handler: H,
}

impl<H> PaymentFeed<H> {
    pub fn new(handler: H) -> Self {
        PaymentFeed { handler }
    }
}

impl<H: Handler> kit::deliver::Feed for PaymentFeed<H> {
    type Event = OrderCreated;

    fn parse(&self, line: &str) -> Result<OrderCreated, String> {
        OrderCreated::from_json(line).map_err(|e| e.to_string())
    }

    async fn deliver(&self, pool: &PgPool, order: OrderCreated) -> Result<String, String> {
        let outcome = (self.handler.call(pool.clone(), order.clone()).await)
            .map_err(|error| kit::describe_sqlx(&error))?;
        // The delivery happened; a report that cannot be read says so, and is not the
        // handler's failure.
        let after = payment_after(pool, order.order_id())
            .await
            .unwrap_or_else(|e| format!("(the payment could not be read back: {e})"));
        Ok(format!(
            "order.created {} ({} cents for {}, card {}): {outcome:?}. {after}",
            order.id(),
            order.amount_cents(),
            order.order_id(),
            order.card()
        ))
    }
}

/// The network's charges, the step's record and its outbox for one order, read in a line.
async fn payment_after(pool: &PgPool, order_id: &str) -> Result<String, String> {
    let describe = |e: sqlx::Error| kit::describe_sqlx(&e);
    let charges: Vec<(String, String)> = sqlx::query_as(
        "SELECT status, idempotency_key FROM card_network.charges
          WHERE order_id = $1 ORDER BY charged_at, id",
    )
    .bind(order_id)
    .fetch_all(pool)
    .await
    .map_err(describe)?;
    let payments: i64 = sqlx::query_scalar("SELECT count(*) FROM payments WHERE order_id = $1")
        .bind(order_id)
        .fetch_one(pool)
        .await
        .map_err(describe)?;
    let outbox: Vec<(String, String)> =
        sqlx::query_as("SELECT type, event_id FROM outbox WHERE aggregate_id = $1 ORDER BY seq")
            .bind(order_id)
            .fetch_all(pool)
            .await
            .map_err(describe)?;
    let listed = |rows: &[(String, String)], joiner: &str| {
        if rows.is_empty() {
            "none".to_string()
        } else {
            let shown: Vec<String> = (rows.iter())
                .map(|(what, key)| format!("{what}{joiner}{key}"))
                .collect();
            shown.join(", ")
        }
    };
    Ok(format!(
        "Card network charges for {order_id}: {}; payments rows: {payments}; outbox: {}",
        listed(&charges, " under key "),
        listed(&outbox, " ")
    ))
}

/// The `deliver` binary of lesson 06's exercise and solution.
pub fn main<H: Handler>(subject: Subject<H>) -> ExitCode {
    kit::deliver::main(
        PaymentFeed {
            handler: subject.handler,
        },
        subject.schema,
    )
}

#[cfg(test)]
mod tests {
    use kit::deliver::Feed;

    use super::*;

    const CREATED: &str = r#"{"id":"evt-ord-1","type":"order.created","aggregate_id":"ord-1","payload":{"order_id":"ord-1","amount_cents":2598},"occurred_at":"2026-07-14T09:15:00Z"}"#;

    fn parse(line: &str) -> Result<OrderCreated, String> {
        let feed = PaymentFeed {
            handler: |_: PgPool, _: OrderCreated| async { Ok(crate::Outcome::Applied) },
        };
        feed.parse(line)
    }

    /// Every way a line can be wrong gets a sentence that names the problem.
    #[test]
    fn each_bad_line_is_refused_with_its_problem() {
        let long_id = "x".repeat(201);
        let cases: Vec<(String, &str)> = vec![
            ("{\"id\": \"evt-1\",".into(), "not valid JSON"),
            ("[1, 2]".into(), "not valid JSON for an order.created"),
            (
                CREATED.replace(r#""type":"order.created","#, ""),
                "missing field `type`",
            ),
            (
                CREATED.replace("order.created", "payment.succeeded"),
                "type \"payment.succeeded\"",
            ),
            (
                CREATED.replace(r#""id":"evt-ord-1","#, ""),
                "missing field `id`",
            ),
            (
                CREATED.replace(r#""id":"evt-ord-1""#, r#""id":"""#),
                "id is empty",
            ),
            (CREATED.replace("evt-ord-1", &long_id), "201 bytes long"),
            (
                CREATED.replace("2598", r#""2598""#),
                "invalid type: string \"2598\", expected i64",
            ),
            (
                CREATED.replace(r#""order_id":"ord-1""#, r#""order_id":"ord-2""#),
                "payload names order \"ord-2\"",
            ),
            (CREATED.replace("2598", "-5"), "must be positive"),
            (
                CREATED.replace("2026-07-14T09:15:00Z", ""),
                "occurred_at is empty",
            ),
            (
                CREATED.replace("2598}", r#"2598,"card":""}"#),
                "card is empty",
            ),
            (
                CREATED.replace("2598}", r#"2598,"currency":"EUR"}"#),
                "unknown field `currency`",
            ),
        ];
        kit::deliver::assert_each_refused(cases, parse);
    }
}
