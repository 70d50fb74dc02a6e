//! Lesson 08's tests on a Kafka-protocol broker, run against `relay` and `consume` in this
//! crate's `src/lib.rs`, unchanged (`cargo workbook check 08 --kafka`, or `cargo test -p
//! exercise-08-outbox-relay --features kafka --test kafka`).
//!
//! The broker is the one at KAFKA_BOOTSTRAP_SERVERS, or a throwaway one the kit starts; each
//! test makes a topic and a group of its own. The scenarios are in
//! lessons/08-outbox-relay/src/kafka/scenarios.rs, and chapter 8's "On a Kafka broker" tells
//! their stories.

use outbox_relay::kafka::scenarios;
use outbox_relay::{Violation, subject};

/// A relay dies between its publish and its mark; the next relay, with a producer of its own,
/// publishes the rows again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_kafka_a_relay_restarted_with_a_new_producer_ships_once() -> Result<(), Violation> {
    scenarios::relay_restarts_and_publishes_again(subject!(handler::run)).await
}

/// A consumer of the group handles a message and dies before it commits the offset; the group
/// delivers the message again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_kafka_a_consumer_that_dies_before_its_commit_ships_once() -> Result<(), Violation> {
    scenarios::consumer_dies_before_its_commit(subject!(handler::run)).await
}
