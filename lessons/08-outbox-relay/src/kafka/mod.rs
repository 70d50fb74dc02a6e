//! Lesson 08 on a real broker that speaks the Kafka protocol (`cargo workbook check 08
//! --kafka`): the student's `relay` and `consume` unchanged, but [`publish`](crate::publish)
//! produces to a Kafka topic, and the consumer is a member of a consumer group that commits its
//! offset to the broker once a message's step has returned.
//!
//! Every relay's pass runs as a process of its own would: with a producer of its own, made for
//! the pass. The producer is idempotent (`enable.idempotence`), as a careful service configures
//! one, and the tests record what that does and does not make harmless.

mod group;
pub mod scenarios;

use kit::KitError;
use kit_kafka::TestTopic;
use kit_kafka::rdkafka::message::{Header, OwnedHeaders};
use kit_kafka::rdkafka::producer::{FutureProducer, FutureRecord};

use crate::OutboxRow;

tokio::task_local! {
    /// The topic a relay's pass publishes to, on the Kafka track.
    static PUBLISHING: Publisher;
}

/// The topic the current relay's pass publishes to, if it runs on the Kafka track.
pub(crate) fn publishing() -> Option<Publisher> {
    PUBLISHING.try_with(Clone::clone).ok()
}

/// A relay process's producer, and the topic it publishes to.
#[derive(Clone)]
pub(crate) struct Publisher {
    topic: TestTopic,
    producer: FutureProducer,
}

impl Publisher {
    /// A new producer: to the broker, a new producer id, as a restarted relay process has.
    fn new(topic: &TestTopic) -> Result<Publisher, KitError> {
        Ok(Publisher {
            topic: topic.clone(),
            producer: topic.producer()?,
        })
    }

    /// Produces `row` to the topic's one partition and waits for the broker to have it: the
    /// event's id as the record's key, the outbox row's id and the event's id in its headers,
    /// the announcement as its value.
    pub(crate) async fn publish(&self, row: &OutboxRow) -> Result<(), sqlx::Error> {
        let outbox_id = row.id.to_string();
        let headers = OwnedHeaders::new()
            .insert(Header {
                key: "outbox_id",
                value: Some(&outbox_id),
            })
            .insert(Header {
                key: "event_id",
                value: Some(&row.event_id),
            });
        let record = FutureRecord::to(&self.topic.name)
            .partition(0)
            .key(&row.event_id)
            .payload(&row.payload)
            .headers(headers);
        match self.producer.send(record, kit_kafka::REQUEST_TIMEOUT).await {
            Ok(_) => Ok(()),
            Err((e, _)) => Err(broker_error(format!(
                "the broker did not take the record of outbox row {}: {e}",
                row.id
            ))),
        }
    }
}

/// A broker's refusal, as `publish` reports an error: an I/O error of the relay's, since it is
/// not the database's.
fn broker_error(detail: String) -> sqlx::Error {
    sqlx::Error::Io(std::io::Error::other(detail))
}

/// The pipeline `handler`, with every relay pass it runs publishing to `topic` through a
/// producer of its own.
pub(crate) fn on_topic<H: crate::Handler>(
    handler: H,
    topic: TestTopic,
) -> impl crate::Handler + use<H> {
    move |pool: sqlx::PgPool, step: crate::Step| {
        let (handler, topic) = (handler.clone(), topic.clone());
        async move {
            let publisher = Publisher::new(&topic).map_err(|e| broker_error(e.to_string()))?;
            PUBLISHING.scope(publisher, handler.call(pool, step)).await
        }
    }
}
