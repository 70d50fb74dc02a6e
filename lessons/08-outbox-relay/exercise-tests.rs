//! Lesson 08's tests, run against `relay` and `consume` (through `run`) in this crate's
//! `src/lib.rs`.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.
//!
//! From the handler to the rule that judges it, three files: this one, where each test hands the
//! handler to one scenario (`scenarios::…`); the scenario, in
//! lessons/08-outbox-relay/src/scenarios/ (a fresh database, the deliveries in the order it scripts
//! them, and what it checks of a delivery that failed or waited); and
//! lessons/08-outbox-relay/src/judge.rs, the rule every scenario checks. What a broken rule says is
//! worded in lessons/08-outbox-relay/src/violation.rs, and chapter 8 of the book tells each
//! scenario's story. Every scenario checks the same rule: every announcement the producer committed
//! reached the broker at least once, and the warehouse shipped it exactly once.
//!
//! This file is also the lesson's one list of scenarios: the maintainers' checks run these tests,
//! by these names, against every wrong fix in lessons/08-outbox-relay/wrong-fixes/, and `cargo
//! repeat 08` counts the ones its checks.rs names.

use outbox_relay::{Violation, scenarios, subject};
use rstest::rstest;

/// Passes against the broken pipeline too: nothing dies, and the rows commit in order.
#[tokio::test]
async fn announcements_are_relayed_and_shipped_once() -> Result<(), Violation> {
    scenarios::relayed_and_consumed_once(subject!(handler::run)).await
}

/// Scripted: the row with the lower id commits after a relay has passed the higher one.
#[tokio::test]
async fn a_row_that_commits_late_is_still_published() -> Result<(), Violation> {
    scenarios::rows_commit_out_of_order(subject!(handler::run)).await
}

/// The fault test: a relay publishes and dies before recording it; the rows go out again.
#[tokio::test]
async fn rows_published_again_after_a_relay_crash_ship_once() -> Result<(), Violation> {
    scenarios::relay_crashes_between_publish_and_mark(subject!(handler::run)).await
}

/// The relay's other crash window: it dies while it publishes; nothing it wrote down survives.
#[tokio::test]
async fn a_relay_that_dies_while_it_publishes_loses_nothing() -> Result<(), Violation> {
    scenarios::relay_dies_while_it_publishes(subject!(handler::run)).await
}

/// The broker refuses one row's publish, once: the row still goes out, later.
#[tokio::test]
async fn a_message_the_broker_refused_is_published_later() -> Result<(), Violation> {
    scenarios::broker_refuses_a_message(subject!(handler::run)).await
}

/// Scripted: one message reaches two consumers, the second while the first is shipping.
#[tokio::test]
async fn a_message_delivered_to_two_consumers_ships_once() -> Result<(), Violation> {
    scenarios::consumers_race_for_one_message(subject!(handler::run)).await
}

/// A consumer that dies as it ships leaves nothing that stops the redelivery from shipping.
#[tokio::test]
async fn a_consumer_that_dies_before_shipping_ships_on_redelivery() -> Result<(), Violation> {
    scenarios::consumer_dies_before_shipping(subject!(handler::run)).await
}

/// Scripted: while one message's inbox row is held, a message for another order goes through.
#[tokio::test]
async fn a_message_for_another_order_does_not_wait() -> Result<(), Violation> {
    scenarios::other_orders_do_not_wait(subject!(handler::run)).await
}

/// The producer is restored from a backup, and hands the outbox ids of shipped events to new
/// ones.
#[tokio::test]
async fn a_new_event_after_the_producer_is_restored_ships() -> Result<(), Violation> {
    scenarios::producer_restored_from_a_backup(subject!(handler::run)).await
}

/// Several relays at once over one outbox.
#[rstest]
#[case::two_relays(2)]
#[case::eight_relays(8)]
#[case::thirty_two_relays(32)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relays_released_together_ship_each_row_once(
    #[case] relays: usize,
) -> Result<(), Violation> {
    scenarios::barrier(subject!(handler::run), relays).await
}
