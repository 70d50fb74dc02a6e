//! `cargo workbook deliver 07`: the saga's events as JSON lines. An `order.created` places the
//! order, as the order service does. A payment verdict is *appended to the log*, as a producer
//! would, and then the handler (`poll`) consumes the log as group `saga` until it has caught up;
//! the report says where the verdict landed, what the consumer took, and where the group's
//! offset now points.

use std::process::ExitCode;

use order_saga::by_hand::SagaEvent;
use sqlx::PgPool;

use crate::{Handler, Poll, Polled, Subject};

/// The group `deliver` consumes as.
const GROUP: &str = "saga";

/// Lesson 07's lines: orders placed, verdicts appended and consumed.
pub struct LogFeed<H> {
    handler: H,
}

impl<H> LogFeed<H> {
    pub fn new(handler: H) -> Self {
        LogFeed { handler }
    }
}

impl<H: Handler> kit::deliver::Feed for LogFeed<H> {
    type Event = (SagaEvent, String);

    fn parse(&self, line: &str) -> Result<(SagaEvent, String), String> {
        SagaEvent::from_json(line).map(|event| (event, line.trim().to_string()))
    }

    async fn deliver(&self, pool: &PgPool, (event, line): Self::Event) -> Result<String, String> {
        let describe = |e: sqlx::Error| kit::describe_sqlx(&e);
        sqlx::query("INSERT INTO consumer_offsets (group_id) VALUES ($1) ON CONFLICT DO NOTHING")
            .bind(GROUP)
            .execute(pool)
            .await
            .map_err(describe)?;
        let payment = match event {
            SagaEvent::OrderCreated {
                order_id,
                amount_cents,
            } => {
                let placed = sqlx::query(
                    "INSERT INTO orders (id, amount_cents) VALUES ($1, $2) \
                     ON CONFLICT (id) DO NOTHING",
                )
                .bind(&order_id)
                .bind(amount_cents)
                .execute(pool)
                .await
                .map_err(describe)?;
                return Ok(if placed.rows_affected() == 1 {
                    format!("order.created {order_id}: a pending order for {amount_cents} cents")
                } else {
                    format!("order.created {order_id}: the order exists already, nothing changed")
                });
            }
            SagaEvent::Payment(payment) => payment,
        };
        let position: i64 =
            sqlx::query_scalar("INSERT INTO log (event) VALUES ($1) RETURNING position")
                .bind(&line)
                .fetch_one(pool)
                .await
                .map_err(describe)?;
        let mut taken = 0;
        loop {
            match self.handler.call(pool.clone(), Poll::new(GROUP, 10)).await {
                Ok(Polled { handled: 0 }) => break,
                Ok(Polled { handled }) => taken += handled,
                Err(error) => {
                    return Err(format!(
                        "{} {} was appended at position {position}, and then a poll failed: {}",
                        payment.kind(),
                        payment.id(),
                        kit::describe_sqlx(&error)
                    ));
                }
            }
        }
        let (next, status, paid): (i64, Option<String>, Option<i64>) = sqlx::query_as(
            "SELECT (SELECT next_position FROM consumer_offsets WHERE group_id = $1),
                    (SELECT status FROM orders WHERE id = $2),
                    (SELECT paid_cents FROM orders WHERE id = $2)",
        )
        .bind(GROUP)
        .bind(payment.order_id())
        .fetch_one(pool)
        .await
        .map_err(describe)?;
        let order = match (status, paid) {
            (Some(status), Some(paid)) => {
                format!("{} is {status}, {paid} cents paid", payment.order_id())
            }
            _ => format!("there is no order {}", payment.order_id()),
        };
        Ok(format!(
            "{} {} appended at position {position}; the consumer took {taken} event(s), and group \
             {GROUP}'s offset is now {next}. {order}",
            payment.kind(),
            payment.id()
        ))
    }
}

/// The `deliver` binary of lesson 07's exercise and solution.
pub fn main<H: Handler>(subject: Subject<H>) -> ExitCode {
    kit::deliver::main(LogFeed::new(subject.handler), subject.schema)
}

#[cfg(test)]
mod tests {
    use order_saga::by_hand::SagaEvent;

    /// The lines shipped for delivering by hand are all lines the feed accepts.
    #[test]
    fn the_shipped_events_parse() {
        let events = include_str!("../events/retried-publish.jsonl");
        for line in events.lines() {
            assert!(SagaEvent::from_json(line).is_ok(), "{line}");
        }
    }
}
