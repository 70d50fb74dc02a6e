//! The poll loop around the student's [`Consumer`], as a service runs one: a real Kafka client
//! joins the group, receives records, and hands them on in batches of one partition. Where a
//! partition starts once the group assigns it, and what a batch does, are the student's.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kit::KitError;
use kit_kafka::TestTopic;
use kit_kafka::rdkafka::consumer::{
    BaseConsumer, CommitMode, Consumer as _, ConsumerContext, Rebalance, StreamConsumer,
};
use kit_kafka::rdkafka::error::KafkaError;
use kit_kafka::rdkafka::message::{Message, OwnedMessage};
use kit_kafka::rdkafka::{ClientContext, Offset, TopicPartitionList};
use order_saga::PaymentEvent;
use sqlx::PgPool;

use super::{Batch, ConsumeError, Consumed, Consumer, Partition, Record};

/// Longer than a group's join and a rebalance take on any broker (Tansu pauses about three
/// seconds for other members before it assigns), far shorter than a test's deadline.
const CATCH_UP_WITHIN: Duration = Duration::from_secs(60);

/// Where the rebalance callback leaves the partitions it was just given, for the loop to
/// decide where each starts: the callback runs inside the client, and may not wait on the
/// database.
#[derive(Default)]
pub(crate) struct Assignments {
    fresh: Mutex<HashSet<i32>>,
}

impl ClientContext for Assignments {}

impl ConsumerContext for Assignments {
    fn post_rebalance(&self, _: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Assign(partitions) = rebalance {
            let mut fresh = self.fresh.lock().expect("no panic holds it");
            fresh.extend(partitions.elements().iter().map(|p| p.partition()));
        }
    }
}

type Client = StreamConsumer<Assignments>;

/// What a batch may ask of the client that received it: to commit an offset to the broker.
#[derive(Clone)]
pub struct Handle {
    client: Arc<Client>,
}

impl Handle {
    pub(crate) async fn commit(&self, partition: &Partition, offset: i64) -> Result<(), String> {
        let client = self.client.clone();
        let (topic, number) = (partition.topic.clone(), partition.partition);
        // commitSync: the client blocks its thread until the broker answers.
        tokio::task::spawn_blocking(move || {
            let mut list = TopicPartitionList::new();
            list.add_partition_offset(&topic, number, Offset::Offset(offset))
                .map_err(|e| e.to_string())?;
            client
                .commit(&list, CommitMode::Sync)
                .map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| e.to_string())?
    }
}

/// Why a consumer stopped before it had caught up.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("`starting_offset` failed: {0}")]
    StartingOffset(sqlx::Error),
    #[error("`consume` failed: {0}")]
    Consume(ConsumeError),
    #[error(
        "the record at offset {offset} of partition {partition} is not a payment verdict: {why}"
    )]
    Poison {
        partition: i32,
        offset: i64,
        why: String,
    },
    #[error(transparent)]
    Kit(#[from] KitError),
    #[error("the consumer had not caught up after {0:?}")]
    NotCaughtUp(Duration),
    #[error("the consumer received no record: the partition was empty where it started")]
    NothingReceived,
}

/// One consumer of a group, as a scenario starts it: the student's [`Consumer`] on `pool`,
/// reading `topic` in batches of at most `max` records until every partition has been read to
/// its end (`ends`, the offset after each one's last record).
pub(crate) struct Member {
    pub(crate) consumer: Arc<dyn Consumer>,
    pub(crate) pool: PgPool,
    pub(crate) topic: TestTopic,
    pub(crate) group: String,
    pub(crate) max: usize,
    pub(crate) ends: Vec<i64>,
    /// Counts every batch this member hands to `consume`, for a script that waits for one
    /// (the soak kills a consumer once it is busy with a batch, not after a delay).
    pub(crate) batches: Option<Arc<tokio::sync::watch::Sender<usize>>>,
}

/// Runs `member` until it has caught up, or a call of the student's fails. Returns what each
/// `consume` said.
pub(crate) async fn run(member: Member) -> Result<Vec<Consumed>, RunError> {
    let (max, ends) = (member.max, member.ends.clone());
    let mut consuming = Loop::join(member)?;
    while let Some((partition, records)) = consuming.next_batch(max, &ends).await? {
        consuming.consume(partition, records).await?;
    }
    Ok(consuming.consumed)
}

/// The two halves of a pause a script holds a consumer in.
pub(crate) struct Pause {
    /// Sent once the consumer holds its batch and has been put out of the group.
    pub(crate) holding: tokio::sync::oneshot::Sender<String>,
    /// Received when the script lets it go on.
    pub(crate) resume: tokio::sync::oneshot::Receiver<()>,
}

/// A consumer that becomes a zombie: it joins, receives its first batch, and stops before it
/// consumes it (a long garbage collection, a slow call). The broker puts it out of the group,
/// as it does a member that has not been heard from within `session.timeout.ms`: here its
/// client leaves at once, so that the script, not a timer, decides when. Once resumed, it
/// consumes the batch it held, as a process that does not know it lost the partition does.
pub(crate) async fn run_as_zombie(member: Member, pause: Pause) -> Result<Consumed, RunError> {
    let (max, ends) = (member.max, member.ends.clone());
    let mut consuming = Loop::join(member)?;
    let Some((partition, records)) = consuming.next_batch(max, &ends).await? else {
        return Err(RunError::NothingReceived);
    };
    let held = format!(
        "offsets {} to {}",
        records[0].offset,
        records[records.len() - 1].offset
    );
    consuming.handle.client.unsubscribe();
    let _ = pause.holding.send(held);
    let _ = pause.resume.await;
    let batch = consuming.batch(partition, records);
    (consuming.consumer)
        .consume(consuming.pool.clone(), batch)
        .await
        .map_err(RunError::Consume)
}

enum Next {
    Message(OwnedMessage),
    /// The client has read the partition to its end.
    End(i32),
    Nothing,
}

struct Loop {
    consumer: Arc<dyn Consumer>,
    pool: PgPool,
    topic: TestTopic,
    group: String,
    handle: Handle,
    batches: Option<Arc<tokio::sync::watch::Sender<usize>>>,
    /// The offset each started partition goes on from.
    positions: HashMap<i32, i64>,
    /// Partitions read to their end.
    finished: HashSet<i32>,
    /// A record of another partition, received while a batch was gathered.
    pending: Option<OwnedMessage>,
    started: Instant,
    consumed: Vec<Consumed>,
}

impl Loop {
    /// A client of the member's group, subscribed to its topic: it joins the group at its
    /// first receive.
    fn join(member: Member) -> Result<Loop, RunError> {
        let Member {
            consumer,
            pool,
            topic,
            group,
            batches,
            ..
        } = member;
        let client: Client = topic
            .consumer_config(&group)
            // A partition read to its end says so: that is how the loop knows it caught up.
            .set("enable.partition.eof", "true")
            .create_with_context(Assignments::default())
            .map_err(kit_kafka::failed("make a consumer"))?;
        client
            .subscribe(&[&topic.name])
            .map_err(kit_kafka::failed(format!("subscribe to {}", topic.name)))?;
        Ok(Loop {
            consumer,
            pool,
            topic,
            group,
            handle: Handle {
                client: Arc::new(client),
            },
            batches,
            positions: HashMap::new(),
            finished: HashSet::new(),
            pending: None,
            started: Instant::now(),
            consumed: Vec::new(),
        })
    }

    /// The next batch: consecutive records of one partition, from where that partition goes
    /// on, at most `max`; `None` once every partition is read to its end.
    async fn next_batch(
        &mut self,
        max: usize,
        ends: &[i64],
    ) -> Result<Option<(i32, Vec<Record>)>, RunError> {
        while self.finished.len() < ends.len() {
            if self.started.elapsed() > CATCH_UP_WITHIN {
                return Err(RunError::NotCaughtUp(CATCH_UP_WITHIN));
            }
            let message = match self.pending.take() {
                Some(message) => message,
                None => match self.next().await? {
                    Next::Message(message) => message,
                    Next::End(partition) => {
                        self.at_end(partition, ends[partition as usize]).await?;
                        continue;
                    }
                    Next::Nothing => continue,
                },
            };
            let partition = message.partition();
            if !self.started_at(partition, message.offset()).await? {
                continue;
            }
            let end = ends[partition as usize];
            let mut records = vec![decode(&message)?];
            while records.len() < max && records[records.len() - 1].offset + 1 < end {
                match self.next().await? {
                    Next::Message(next) if next.partition() == partition => {
                        records.push(decode(&next)?);
                    }
                    Next::Message(other) => {
                        self.pending = Some(other);
                        break;
                    }
                    Next::End(_) | Next::Nothing => {}
                }
            }
            return Ok(Some((partition, records)));
        }
        Ok(None)
    }

    async fn next(&mut self) -> Result<Next, RunError> {
        // A short look, so that the loop's own deadline holds while the group is still
        // joining; nothing is judged by how long a record takes to arrive.
        let received = tokio::time::timeout(Duration::from_millis(100), self.handle.client.recv());
        match received.await {
            Err(_) => Ok(Next::Nothing),
            Ok(Ok(message)) => Ok(Next::Message(message.detach())),
            Ok(Err(KafkaError::PartitionEOF(partition))) => Ok(Next::End(partition)),
            Ok(Err(e)) => Err(kit_kafka::failed("receive a record")(e).into()),
        }
    }

    fn partition(&self, partition: i32) -> Partition {
        Partition {
            group: self.group.clone(),
            topic: self.topic.name.clone(),
            partition,
        }
    }

    /// Whether the partition was assigned since the loop last looked: then the student's
    /// `starting_offset` decides where it starts.
    fn freshly_assigned(&self, partition: i32) -> bool {
        let context = self.handle.client.context();
        let mut fresh = context.fresh.lock().expect("no panic holds it");
        fresh.remove(&partition) || !self.positions.contains_key(&partition)
    }

    /// Decides where a partition starts when it is fresh, and whether `offset` (a record the
    /// client received) is where it goes on from. A record received before a seek took effect
    /// is dropped.
    async fn started_at(&mut self, partition: i32, offset: i64) -> Result<bool, RunError> {
        self.finished.remove(&partition);
        if self.freshly_assigned(partition) {
            let start = self.starting_offset(partition).await?;
            match start {
                Some(stored) if stored != offset => {
                    self.seek(partition, stored)?;
                    return Ok(false);
                }
                _ => {
                    self.positions.insert(partition, offset);
                }
            }
        }
        Ok(self.positions.get(&partition) == Some(&offset))
    }

    async fn starting_offset(&self, partition: i32) -> Result<Option<i64>, RunError> {
        (self.consumer)
            .starting_offset(self.pool.clone(), self.partition(partition))
            .await
            .map_err(RunError::StartingOffset)
    }

    /// The client is at the partition's end: finished, unless the partition is fresh and the
    /// student's `starting_offset` sends it back to an earlier offset.
    async fn at_end(&mut self, partition: i32, end: i64) -> Result<(), RunError> {
        if self.freshly_assigned(partition) {
            match self.starting_offset(partition).await? {
                Some(stored) if stored < end => {
                    self.seek(partition, stored)?;
                    return Ok(());
                }
                Some(stored) => {
                    self.positions.insert(partition, stored);
                }
                // The client started where the broker's committed offset says (or at the
                // beginning), and that is the partition's end for now: a producer may still be
                // appending, so the end it is at is not necessarily the last.
                None => {
                    let committed = self.topic.committed(&self.group, partition).await?;
                    self.positions.insert(partition, committed.unwrap_or(0));
                }
            }
        }
        if self.positions.get(&partition).is_some_and(|&at| at >= end) {
            self.finished.insert(partition);
        }
        Ok(())
    }

    fn seek(&mut self, partition: i32, offset: i64) -> Result<(), RunError> {
        self.handle
            .client
            .seek(
                &self.topic.name,
                partition,
                Offset::Offset(offset),
                kit_kafka::REQUEST_TIMEOUT,
            )
            .map_err(kit_kafka::failed(format!(
                "seek partition {partition} to offset {offset}"
            )))?;
        self.positions.insert(partition, offset);
        Ok(())
    }

    fn batch(&self, partition: i32, records: Vec<Record>) -> Arc<Batch> {
        Arc::new(Batch {
            partition: self.partition(partition),
            records,
            handle: self.handle.clone(),
        })
    }

    async fn consume(&mut self, partition: i32, records: Vec<Record>) -> Result<(), RunError> {
        let batch = self.batch(partition, records);
        let next = batch.next_offset();
        if let Some(batches) = &self.batches {
            batches.send_modify(|started| *started += 1);
        }
        let consumed = (self.consumer)
            .consume(self.pool.clone(), batch)
            .await
            .map_err(RunError::Consume)?;
        match consumed {
            Consumed::Applied => {
                self.positions.insert(partition, next);
            }
            Consumed::Fenced { stored } => self.seek(partition, stored)?,
        }
        self.consumed.push(consumed);
        Ok(())
    }
}

fn decode(message: &OwnedMessage) -> Result<Record, RunError> {
    let poison = |why: String| RunError::Poison {
        partition: message.partition(),
        offset: message.offset(),
        why,
    };
    let payload = message
        .payload()
        .ok_or_else(|| poison("it has no value".into()))?;
    let text = std::str::from_utf8(payload).map_err(|e| poison(e.to_string()))?;
    let event = PaymentEvent::from_json(text).map_err(|e| poison(e.to_string()))?;
    Ok(Record {
        offset: message.offset(),
        event,
    })
}
