//! The warehouse's consumer on the broker: a member of a consumer group that hands each record
//! to the pipeline's `consume` step and, once the step has returned, commits the offset after it
//! to the broker. The effect first, then the offset: at-least-once, so a consumer that dies in
//! between leaves the record to be delivered again, to whichever member the group gives the
//! partition next.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kit::KitError;
use kit_kafka::TestTopic;
use kit_kafka::rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use kit_kafka::rdkafka::message::{Headers, Message as _, OwnedMessage};
use kit_kafka::rdkafka::{Offset, TopicPartitionList};
use sqlx::PgPool;

use crate::{Done, Handler, Message, Step};

/// Longer than a group's join takes on any broker, far shorter than a test's deadline.
const READ_WITHIN: Duration = Duration::from_secs(60);

/// How a member of the group ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ends {
    /// Once it has read the partition to its end, and committed.
    AtTheEnd,
    /// Right after its first step has returned, before it commits: the process dies there.
    AfterTheFirstStep,
}

/// What a member's steps returned.
pub(crate) type Steps = Vec<Result<Done, sqlx::Error>>;

/// One member of `group` on `topic`'s partition 0: receives from the group's committed offset
/// (or from the first record, for a group with none), and consumes until `ends` says.
pub(crate) async fn member<H: Handler>(
    handler: &H,
    pool: &PgPool,
    (topic, group): (&TestTopic, &str),
    ends: Ends,
) -> Result<Steps, KitError> {
    let end = topic.end_offset(0).await?;
    let mut steps = Vec::new();
    if topic.committed(group, 0).await?.unwrap_or(0) >= end {
        return Ok(steps);
    }
    let client: StreamConsumer = topic
        .consumer_config(group)
        .create()
        .map_err(kit_kafka::failed("make a consumer"))?;
    let client = Arc::new(client);
    client
        .subscribe(&[&topic.name])
        .map_err(kit_kafka::failed(format!("subscribe to {}", topic.name)))?;
    let started = Instant::now();
    loop {
        let left = READ_WITHIN.saturating_sub(started.elapsed());
        let doing = format!("read {}", topic.name);
        let received = (tokio::time::timeout(left, client.recv()).await).map_err(|_| {
            kit_kafka::failed(doing.clone())(format!(
                "the group had not read to offset {end} within {READ_WITHIN:?}"
            ))
        })?;
        let record = received.map_err(kit_kafka::failed(doing))?.detach();
        let step = Step::Consume(message_of(&record)?);
        steps.push(handler.call(pool.clone(), step).await);
        if ends == Ends::AfterTheFirstStep {
            // Dropped without a commit: its client leaves the group, and the record is still
            // the group's next one.
            return Ok(steps);
        }
        let next = record.offset() + 1;
        commit(&client, &topic.name, next).await?;
        if next >= end {
            return Ok(steps);
        }
    }
}

/// Commits `offset` for partition 0 and waits for the broker's answer (`commitSync`).
async fn commit(client: &Arc<StreamConsumer>, topic: &str, offset: i64) -> Result<(), KitError> {
    let (client, topic) = (client.clone(), topic.to_string());
    let doing = format!("commit offset {offset}");
    tokio::task::spawn_blocking(move || {
        let mut list = TopicPartitionList::new();
        list.add_partition_offset(&topic, 0, Offset::Offset(offset))?;
        client.commit(&list, CommitMode::Sync)
    })
    .await
    .map_err(kit_kafka::failed(doing.clone()))?
    .map_err(kit_kafka::failed(doing))
}

/// The message a record carries, as the relay produced it (see [`super::Publisher`]).
pub(crate) fn message_of(record: &OwnedMessage) -> Result<Message, KitError> {
    let malformed = |why: &str| KitError::KafkaClient {
        doing: format!("read the record at offset {}", record.offset()),
        detail: why.to_string(),
    };
    let header = |name: &str| {
        let headers = record.headers()?;
        let found = headers.iter().find(|header| header.key == name)?;
        String::from_utf8(found.value?.to_vec()).ok()
    };
    let outbox_id = (header("outbox_id").and_then(|id| id.parse().ok()))
        .ok_or_else(|| malformed("no outbox_id header"))?;
    let event_id = header("event_id").ok_or_else(|| malformed("no event_id header"))?;
    let payload = (record.payload())
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
        .ok_or_else(|| malformed("no value"))?;
    Ok(Message {
        outbox_id,
        event_id,
        payload: payload.to_string(),
    })
}
