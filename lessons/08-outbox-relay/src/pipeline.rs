//! What the relay and the consumer are given, so that the student's code is about claiming,
//! marking and deduplicating:
//!
//! - [`Step`] and [`Done`]: one step of the pipeline, as the tests drive it;
//! - [`OutboxRow`] and [`publish`]: a row of the producer's outbox, and the broker;
//! - [`Message`] and [`ship`]: a published message, and the warehouse's effect.

use sqlx::postgres::PgExecutor;
use sqlx::{Connection, PgConnection, PgPool};

/// One step of the pipeline: a relay's pass over the outbox, or the consumer handling one
/// message. `run` in the student's crate hands each to `relay` or `consume`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Relay(Relay),
    Consume(Message),
}

/// What a step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done {
    /// The relay published this many rows.
    Relayed(usize),
    /// The consumer handled a message.
    Consumed(Outcome),
}

/// What the consumer reports for one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// This delivery shipped the order.
    Applied,
    /// The event was handled before (it was published, or delivered, again).
    AlreadyApplied,
}

/// One pass of a relay: at most `max` rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relay {
    max: i64,
}

impl Relay {
    /// Panics on a `max` below 1: the tests' own values.
    pub fn new(max: i64) -> Relay {
        assert!(max >= 1, "a relay's pass needs max >= 1");
        Relay { max }
    }

    pub fn max(&self) -> i64 {
        self.max
    }

    /// Which relay's progress row a relay that keeps one uses (`relay_progress`).
    pub fn name(&self) -> &'static str {
        "relay"
    }
}

/// A row of the producer's outbox, as a relay reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxRow {
    pub id: i64,
    pub event_id: String,
    pub payload: String,
}

impl From<(i64, String, String)> for OutboxRow {
    fn from((id, event_id, payload): (i64, String, String)) -> OutboxRow {
        OutboxRow {
            id,
            event_id,
            payload,
        }
    }
}

/// A message as the broker delivers it to the consumer: the outbox row it was published from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The row's id in the producer's outbox: unique in one copy of the producer's database.
    pub outbox_id: i64,
    /// The id the producer gave the event (`ord-1:order`): the same in every copy of it.
    pub event_id: String,
    pub payload: String,
}

// ANCHOR: publish
/// Publishes `row` to the broker. The broker is another system: this call reaches it on a
/// connection of its own, and the message is out the moment it returns, whatever the relay's
/// transaction does next. Publishing a row twice sends it twice. (On the Kafka track, the
/// broker is a Kafka topic, and the row is produced to it: the same promise.)
pub async fn publish(pool: &PgPool, row: &OutboxRow) -> Result<(), sqlx::Error> {
    #[cfg(feature = "kafka")]
    if let Some(topic) = crate::kafka::publishing() {
        return topic.publish(row).await;
    }
    let mut broker = PgConnection::connect_with(&pool.connect_options()).await?;
    sqlx::query("INSERT INTO broker.messages (outbox_id, event_id, payload) VALUES ($1, $2, $3)")
        .bind(row.id)
        .bind(&row.event_id)
        .bind(&row.payload)
        .execute(&mut broker)
        .await?;
    broker.close().await
}
// ANCHOR_END: publish

// ANCHOR: ship
/// The warehouse's effect: ships the order the message confirms, one row in `shipments`. On the
/// consumer's transaction, it commits or rolls back with it. Naive about duplicates: called
/// twice for one message, it ships twice.
pub async fn ship(conn: impl PgExecutor<'_>, message: &Message) -> Result<(), sqlx::Error> {
    let order_id = serde_json::from_str::<serde_json::Value>(&message.payload)
        .ok()
        .and_then(|payload| payload["order_id"].as_str().map(str::to_string))
        .ok_or_else(|| {
            sqlx::Error::Decode(
                format!(
                    "message {} has no order_id in its payload",
                    message.outbox_id
                )
                .into(),
            )
        })?;
    sqlx::query("INSERT INTO shipments (order_id, event_id, outbox_id) VALUES ($1, $2, $3)")
        .bind(order_id)
        .bind(&message.event_id)
        .bind(message.outbox_id)
        .execute(conn)
        .await?;
    Ok(())
}
// ANCHOR_END: ship
