//! The Kafka track's half of the kit. [`kit::broker()`] finds or starts the broker; this crate
//! talks to it with a real Kafka client, and gives every test names of its own, so that tests
//! sharing a broker (the kit's, or a cluster at `KAFKA_BOOTSTRAP_SERVERS`) never read each
//! other's records or join each other's groups.
//!
//! It is a crate of its own, outside the kit, because librdkafka is a C library that takes
//! minutes to build: only the Kafka track's builds pay for it.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use kit::KitError;
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::message::OwnedMessage;
use rdkafka::producer::{FutureProducer, FutureRecord};

pub mod leftovers;

pub use rdkafka;

/// How long a request to the broker may take before the test gives up on it.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// A topic of this test's own, on the broker of this test process.
#[derive(Debug, Clone)]
pub struct TestTopic {
    pub name: String,
    pub partitions: i32,
    pub bootstrap: String,
}

/// `wb-<machine>-<pid>-<n>-<what>`: unique among this process's tests, and traced back to the
/// machine and the process (see [`leftovers`]).
pub fn unique_name(what: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    leftovers::name(NEXT.fetch_add(1, Ordering::Relaxed), what)
}

impl TestTopic {
    /// Creates a topic of `partitions` partitions (one replica: the kit's broker is one node).
    pub async fn create(what: &str, partitions: i32) -> Result<TestTopic, KitError> {
        let broker = kit::broker()?;
        if !broker.throwaway {
            // Once per test process, before its first topic.
            static SWEPT: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
            SWEPT
                .get_or_try_init(|| async {
                    leftovers::delete_leftovers(&broker.bootstrap)
                        .await
                        .map(drop)
                })
                .await?;
        }
        let bootstrap = broker.bootstrap.clone();
        let name = unique_name(what);
        let admin: AdminClient<DefaultClientContext> = client(&bootstrap)
            .create()
            .map_err(failed("make an admin client"))?;
        let options = AdminOptions::new().operation_timeout(Some(REQUEST_TIMEOUT));
        let topic = NewTopic::new(&name, partitions, TopicReplication::Fixed(1));
        let results = (admin.create_topics([&topic], &options).await)
            .map_err(failed(format!("create the topic {name}")))?;
        for result in results {
            result.map_err(|(topic, code)| KitError::KafkaClient {
                doing: format!("create the topic {topic}"),
                detail: code.to_string(),
            })?;
        }
        Ok(TestTopic {
            name,
            partitions,
            bootstrap,
        })
    }

    /// A producer as a careful service configures one: idempotent (the broker drops a batch
    /// the producer retried after a lost acknowledgement), acknowledged by every replica.
    pub fn producer(&self) -> Result<FutureProducer, KitError> {
        client(&self.bootstrap)
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .create()
            .map_err(failed("make a producer"))
    }

    /// Appends `payload` to `partition`, and returns its offset once the broker has it.
    pub async fn produce(
        &self,
        producer: &FutureProducer,
        partition: i32,
        key: &str,
        payload: &str,
    ) -> Result<i64, KitError> {
        let record = FutureRecord::to(&self.name)
            .partition(partition)
            .key(key)
            .payload(payload);
        let delivered = producer
            .send(record, REQUEST_TIMEOUT)
            .await
            .map_err(|(e, _)| KitError::KafkaClient {
                doing: format!("produce to {} partition {partition}", self.name),
                detail: e.to_string(),
            })?;
        Ok(delivered.offset)
    }

    /// Appends `records` (each a key and a payload) to `partition`, in order: every one is
    /// handed to the client before the first answer is awaited, since one at a time would wait
    /// out the client's `linger.ms` for each.
    pub async fn produce_all(
        &self,
        producer: &FutureProducer,
        partition: i32,
        records: &[(&str, &str)],
    ) -> Result<(), KitError> {
        let failed = |detail: String| KitError::KafkaClient {
            doing: format!("produce to {} partition {partition}", self.name),
            detail,
        };
        let mut sent = Vec::with_capacity(records.len());
        for &(key, payload) in records {
            let record = FutureRecord::to(&self.name)
                .partition(partition)
                .key(key)
                .payload(payload);
            sent.push(
                producer
                    .send_result(record)
                    .map_err(|(e, _)| failed(e.to_string()))?,
            );
        }
        for delivery in sent {
            match delivery.await {
                Ok(Ok(_)) => {}
                Ok(Err((e, _))) => return Err(failed(e.to_string())),
                Err(_) => return Err(failed("the client dropped the record".into())),
            }
        }
        Ok(())
    }

    /// The offset after `partition`'s last record (its high watermark): where a consumer that
    /// has read everything stands.
    pub async fn end_offset(&self, partition: i32) -> Result<i64, KitError> {
        use rdkafka::consumer::{BaseConsumer, Consumer};
        let reader: BaseConsumer = client(&self.bootstrap)
            .create()
            .map_err(failed("make a client to read the partition's end"))?;
        let topic = self.name.clone();
        let (_, high) = tokio::task::spawn_blocking(move || {
            reader.fetch_watermarks(&topic, partition, REQUEST_TIMEOUT)
        })
        .await
        .map_err(failed("wait for the partition's end"))?
        .map_err(failed(format!(
            "read the end of {} partition {partition}",
            self.name
        )))?;
        Ok(high)
    }

    /// Every record of `partition`, from its first to its end, read outside any group (nothing
    /// is committed): what the broker holds, as the test sees it.
    pub async fn read_all(&self, partition: i32) -> Result<Vec<OwnedMessage>, KitError> {
        use rdkafka::consumer::{Consumer, StreamConsumer};
        use rdkafka::{Offset, TopicPartitionList};
        let end = self.end_offset(partition).await?;
        let reader: StreamConsumer = client(&self.bootstrap)
            .set("group.id", unique_name("reader"))
            .set("enable.auto.commit", "false")
            .create()
            .map_err(failed("make a client to read the topic"))?;
        let mut list = TopicPartitionList::new();
        (list.add_partition_offset(&self.name, partition, Offset::Beginning))
            .map_err(failed("name the partition to read"))?;
        reader
            .assign(&list)
            .map_err(failed("assign the partition"))?;
        let mut records = Vec::new();
        while records.len() < end.max(0) as usize {
            let received = tokio::time::timeout(REQUEST_TIMEOUT, reader.recv()).await;
            let message = (received.map_err(failed(format!("read {}", self.name))))?
                .map_err(failed(format!("read {}", self.name)))?;
            records.push(message.detach());
        }
        Ok(records)
    }

    /// A consumer's settings for `group`: offsets committed only when the code says so, and a
    /// group with nothing committed starts at the beginning of the partition.
    pub fn consumer_config(&self, group: &str) -> ClientConfig {
        let mut config = client(&self.bootstrap);
        config
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .set("auto.offset.reset", "earliest")
            .set("session.timeout.ms", "6000")
            .set("enable.partition.eof", "false");
        config
    }
}

fn client(bootstrap: &str) -> ClientConfig {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap)
        // Loopback: the broker answers at once, or not at all.
        .set("socket.timeout.ms", "10000")
        .set("message.timeout.ms", "20000");
    config
}

/// Wraps a client error with what the test was doing.
pub fn failed<E: std::fmt::Display>(doing: impl Into<String>) -> impl FnOnce(E) -> KitError {
    let doing = doing.into();
    move |e| KitError::KafkaClient {
        doing,
        detail: e.to_string(),
    }
}

impl TestTopic {
    /// The offset `group` has committed on the broker for `partition`, if any.
    pub async fn committed(&self, group: &str, partition: i32) -> Result<Option<i64>, KitError> {
        use rdkafka::consumer::{BaseConsumer, Consumer};
        use rdkafka::{Offset, TopicPartitionList};
        let reader: BaseConsumer = self
            .consumer_config(group)
            .create()
            .map_err(failed("make a client to read committed offsets"))?;
        let mut list = TopicPartitionList::new();
        list.add_partition(&self.name, partition);
        // OffsetFetch: the client blocks its thread until the broker answers. Reading offsets
        // does not join the group.
        let committed =
            tokio::task::spawn_blocking(move || reader.committed_offsets(list, REQUEST_TIMEOUT))
                .await
                .map_err(failed("wait for the committed offsets"))?
                .map_err(failed(format!("read {group}'s committed offsets")))?;
        let offset = (committed.elements().first()).map(|element| element.offset());
        Ok(match offset {
            Some(Offset::Offset(offset)) => Some(offset),
            _ => None,
        })
    }
}
