//! Lesson 07 on a real broker that speaks the Kafka protocol (`cargo workbook check 07 --kafka`):
//! the same verdicts and the same `handle`, but the log is a Kafka topic, the group's offset is
//! the broker's (or the consumer's own, kept with the effect), and a partition belongs to one
//! consumer of the group at a time, until a rebalance takes it away.
//!
//! The student writes two functions ([`Consumer`]): where to start a partition the group has
//! just assigned, and how to consume one batch of it. The lesson runs the real client around
//! them ([`run`]), as a service's poll loop does.

mod judge;
mod run;
pub mod scenarios;
mod soak;

pub use soak::{KAFKA_SOAK, KafkaSoak, soak_on_kafka};

use std::sync::Arc;

use order_saga::PaymentEvent;
use sqlx::PgPool;

pub use run::Handle;

/// A partition of a topic, as one consumer group reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    pub group: String,
    pub topic: String,
    pub partition: i32,
}

/// A record of the partition, and where it sits.
#[derive(Debug, Clone)]
pub struct Record {
    pub offset: i64,
    pub event: PaymentEvent,
}

/// Consecutive records of one partition, as one poll of the client returned them.
pub struct Batch {
    partition: Partition,
    records: Vec<Record>,
    handle: Handle,
}

impl Batch {
    pub fn partition(&self) -> &Partition {
        &self.partition
    }

    /// In the partition's order; never empty.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// The offset of the batch's first record.
    pub fn first_offset(&self) -> i64 {
        self.records[0].offset
    }

    /// The offset just after the batch's last record: where the group goes on from.
    pub fn next_offset(&self) -> i64 {
        self.records[self.records.len() - 1].offset + 1
    }

    /// Commits [`next_offset`](Batch::next_offset) to the broker as the group's offset for this
    /// partition, and waits for the broker's answer (Kafka's `commitSync`). A consumer that the
    /// group assigns this partition next starts there.
    pub async fn commit_to_broker(&self) -> Result<(), ConsumeError> {
        self.handle
            .commit(&self.partition, self.next_offset())
            .await
            .map_err(ConsumeError::Broker)
    }
}

/// What a consumer did with a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consumed {
    /// Its effects are committed, and so is the offset after it.
    Applied,
    /// Not applied: the group's stored offset for the partition was `stored`, not the batch's
    /// first offset, so the batch is not the next one (this consumer lost the partition, or its
    /// position is stale). The poll loop goes on from `stored`.
    Fenced { stored: i64 },
}

/// Why a batch was not consumed.
#[derive(Debug, thiserror::Error)]
pub enum ConsumeError {
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error("the broker refused the commit: {0}")]
    Broker(String),
}

/// The student's consumer: `starting_offset` and `consume` of `src/kafka.rs`, adapted by
/// [`kafka_consumer!`](crate::kafka_consumer).
pub trait Consumer: Send + Sync + 'static {
    fn starting_offset(
        &self,
        pool: PgPool,
        partition: Partition,
    ) -> BoxedFuture<Result<Option<i64>, sqlx::Error>>;

    fn consume(
        &self,
        pool: PgPool,
        batch: Arc<Batch>,
    ) -> BoxedFuture<Result<Consumed, ConsumeError>>;
}

/// A boxed future, as a trait object's method can return one.
pub type BoxedFuture<T> = std::pin::Pin<Box<dyn Future<Output = T> + Send>>;

/// `kafka_consumer!(handler::kafka)`: the two functions of a crate's `src/kafka.rs`, as a
/// [`Consumer`].
#[macro_export]
macro_rules! kafka_consumer {
    ($($module:ident)::+) => {{
        struct Student;
        impl $crate::kafka::Consumer for Student {
            fn starting_offset(
                &self,
                pool: $crate::__private::PgPool,
                partition: $crate::kafka::Partition,
            ) -> $crate::kafka::BoxedFuture<
                Result<Option<i64>, $crate::__private::sqlx::Error>,
            > {
                Box::pin(async move { $($module)::+::starting_offset(&pool, &partition).await })
            }

            fn consume(
                &self,
                pool: $crate::__private::PgPool,
                batch: std::sync::Arc<$crate::kafka::Batch>,
            ) -> $crate::kafka::BoxedFuture<
                Result<$crate::kafka::Consumed, $crate::kafka::ConsumeError>,
            > {
                Box::pin(async move { $($module)::+::consume(&pool, &batch).await })
            }
        }
        let consumer: std::sync::Arc<dyn $crate::kafka::Consumer> = std::sync::Arc::new(Student);
        consumer
    }};
}

/// `kafka_subject!(handler::kafka)`: the crate's Kafka consumer, on the lesson's schema.
#[macro_export]
macro_rules! kafka_subject {
    ($($module:ident)::+) => {
        $crate::__private::kit::Subject::new(
            $crate::__private::BASE_MIGRATIONS,
            $crate::kafka_consumer!($($module)::+),
        )
    };
}
