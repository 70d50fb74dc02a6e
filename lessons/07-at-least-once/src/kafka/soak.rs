//! The soak on a Kafka broker: the verdicts of many orders produced to a topic in slices while
//! consumers of one group consume them. Each consumer is killed once it is busy with a batch,
//! at a point drawn from a seed, and a new one joins the group and is assigned the partition.
//! The last one reads the partition to its end, and then every verdict must have been handled
//! exactly once, in order.
//!
//! A kill waits for a batch, not for a delay: a consumer spends its first seconds joining the
//! group, and a kill then would test nothing. Where in its batch each kill lands still depends
//! on the machine; `WORKBOOK_SOAK_SEED=<seed>` replays the same verdicts and schedule.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kit::{Interleaving, KitError};
use kit_kafka::TestTopic;
use tokio::sync::watch;

use super::Consumed;
use super::judge::verdict;
use super::run::{RunError, run};
use super::scenarios::{KafkaSubject, Stage};
use crate::log::Verdict;
use crate::scenarios::SoakReport;
use crate::scenarios::soak::{Consumer, generate, kill, one_session, seed};
use crate::{Delivery, Violation};

/// How big a soak on the broker is.
#[derive(Debug, Clone, Copy)]
pub struct KafkaSoak {
    /// Orders placed; each gets one to two verdicts, some contradicting, some published twice.
    pub orders: usize,
    /// How many times a consumer is killed. Each new consumer waits for the group to assign
    /// it the partition, a few seconds on the kit's broker: the count is kept small.
    pub kills: usize,
    /// Records a batch takes at most.
    pub batch: usize,
}

/// The students' soak on the broker: over 400 verdicts, 8 kills.
pub const KAFKA_SOAK: KafkaSoak = KafkaSoak {
    orders: 300,
    kills: 8,
    batch: 20,
};

/// How the verdicts reach the topic: in this many slices, each produced once the group has
/// gone some way through the ones before it, so that the consumers read a partition that grows.
const SLICES: usize = 8;

/// A consumer of the soak, as its task returns.
type Incarnation = Consumer<Result<Vec<Consumed>, RunError>>;

// ANCHOR: kafka_soak
/// The soak, as described at the top of this file: `size` says how long.
pub async fn soak_on_kafka(
    subject: KafkaSubject,
    size: KafkaSoak,
) -> Result<SoakReport, Violation> {
    let seed = seed();
    let mut rng = fastrand::Rng::with_seed(seed);
    let placed = crate::scenarios::order_ids(size.orders);
    let appended = generate(&mut rng, &placed, true);
    let mut during = Delivery::KafkaSoak {
        seed,
        events: appended.len(),
        kills: 0,
    };
    let mut stage = Stage::new(&subject, during, size.orders, &[]).await?;
    stage.ends = vec![appended.len() as i64];
    let mut interleaving =
        (Interleaving::new(&stage.db).await).map_err(Violation::setup(during))?;
    let started = Instant::now();
    // Every batch any consumer of the soak hands to `consume`, counted.
    let (batches, mut counted) = watch::channel(0usize);
    let batches = Arc::new(batches);
    let producer = tokio::spawn(produce(
        stage.topic.clone(),
        appended.clone(),
        batches.subscribe(),
        size.batch,
    ));

    let mut kills = 0;
    let last = loop {
        let mut consumer = (join(&stage, &subject, size.batch, &batches).await)
            .map_err(Violation::setup(during))?;
        let name = format!("consumer-{}", kills + 1);
        if kills == size.kills {
            interleaving.note(format!("{name} joins the group and reads to the end"));
            break (&mut consumer.task).await;
        }
        // It dies this far into the batch after the next one to three.
        let busy = *counted.borrow_and_update() + rng.usize(1..=3);
        let into = Duration::from_micros(rng.u64(0..=3_000));
        let server_first = rng.bool();
        tokio::select! {
            // Caught up with the whole topic, or failed: either way, the verdict says which.
            stopped = &mut consumer.task => break stopped,
            _ = counted.wait_for(|&n| n >= busy) => {}
        }
        tokio::time::sleep(into).await;
        (kill(&stage.db, consumer, server_first).await).map_err(Violation::setup(during))?;
        kills += 1;
        interleaving.note(format!(
            "{name} joins the group, and is killed {} µs after it starts a batch ({})",
            into.as_micros(),
            if server_first {
                "its session first"
            } else {
                "its process first"
            }
        ));
        during = Delivery::KafkaSoak {
            seed,
            events: appended.len(),
            kills,
        };
    };
    let last = match last {
        Ok(result) => result,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    };
    if last.is_ok() || producer.is_finished() {
        // A producer that failed is why the consumers could not catch up: it says so first.
        (producer.await.expect("the producer does not panic")).map_err(Violation::setup(during))?;
    } else {
        // The consumer stopped before the topic was complete: the producer would wait for it
        // forever.
        producer.abort();
    }
    let elapsed = started.elapsed();
    let seen = stage.seen(&appended);
    verdict(&stage.log, seen, last, during, &mut interleaving).await?;
    Ok(SoakReport {
        seed,
        events: appended.len(),
        kills,
        elapsed,
    })
}
// ANCHOR_END: kafka_soak

/// A new consumer of the stage's group, on a session of its own, counting its batches.
async fn join(
    stage: &Stage,
    subject: &KafkaSubject,
    max: usize,
    batches: &Arc<watch::Sender<usize>>,
) -> Result<Incarnation, KitError> {
    let (pool, pid) = one_session(&stage.db).await?;
    let mut member = stage.member(subject, pool.clone(), max);
    member.batches = Some(batches.clone());
    Ok(Consumer {
        task: tokio::spawn(run(member)),
        pid,
        pool,
    })
}

/// Produces `verdicts` to partition 0 in slices, each once the consumers have started half as
/// many batches as the records before it need: a condition they reach by consuming, not a delay.
async fn produce(
    topic: TestTopic,
    verdicts: Vec<Verdict>,
    mut batches: watch::Receiver<usize>,
    max: usize,
) -> Result<(), KitError> {
    let producer = topic.producer()?;
    let slice = verdicts.len().div_ceil(SLICES);
    for (k, chunk) in verdicts.chunks(slice).enumerate() {
        let needed = k * slice / max / 2;
        // The soak keeps the sender until the producer is done, or aborts the producer.
        let _ = batches.wait_for(|&started| started >= needed).await;
        let json: Vec<String> = chunk.iter().map(Verdict::json).collect();
        let records: Vec<(&str, &str)> = (chunk.iter().zip(&json))
            .map(|(verdict, json)| (verdict.order_id.as_str(), json.as_str()))
            .collect();
        topic.produce_all(&producer, 0, &records).await?;
    }
    Ok(())
}
