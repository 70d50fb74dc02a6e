//! Lesson 07's tests on a Kafka-protocol broker, run against `starting_offset` and `consume` in
//! this crate's `src/kafka.rs` (`cargo workbook check 07 --kafka`, or `cargo test -p
//! exercise-07-at-least-once --features kafka`).
//!
//! The broker is the one at KAFKA_BOOTSTRAP_SERVERS, or a throwaway one the kit starts; each
//! test makes a topic and a group of its own. The scenarios are in
//! lessons/07-at-least-once/src/kafka/scenarios.rs, and chapter 7's "On a Kafka broker" tells
//! their stories.

use at_least_once::Violation;
use at_least_once::kafka::scenarios;

fn subject() -> scenarios::KafkaSubject {
    at_least_once::kafka_subject!(handler::kafka)
}

/// The fault test on a broker: the consumer dies half-way through its batch, and the group
/// gives the partition to a new one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_kafka_a_consumer_that_dies_mid_batch_loses_nothing() -> Result<(), Violation> {
    scenarios::crash_mid_batch_then_restart(subject()).await
}

/// A rebalance with a zombie: a consumer that lost the partition wakes up and consumes the
/// batch it still holds, after the partition's new owner has gone on past it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_kafka_a_zombie_consumer_applies_nothing() -> Result<(), Violation> {
    scenarios::zombie_after_a_rebalance(subject()).await
}

/// The same zombie, woken while the partition's new owner is in the middle of its batch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_kafka_a_zombie_that_wakes_mid_batch_applies_nothing() -> Result<(), Violation> {
    scenarios::zombie_wakes_mid_batch(subject()).await
}

/// The soak on a broker: verdicts produced while consumers of the group consume them, each
/// killed while busy with a batch and replaced by a new one (the seed is printed on failure;
/// WORKBOOK_SOAK_SEED replays it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_kafka_the_soak_loses_nothing_and_applies_nothing_twice() -> Result<(), Violation> {
    let report =
        at_least_once::kafka::soak_on_kafka(subject(), at_least_once::kafka::KAFKA_SOAK).await?;
    println!("{report}");
    Ok(())
}
