//! Lesson 07's tests, run against `poll` in this crate's `src/lib.rs`.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.
//!
//! From the handler to the rule that judges it, three files: this one, where each test hands the
//! handler to one scenario (`scenarios::…`); the scenario, in
//! lessons/07-at-least-once/src/scenarios/ (a fresh database, the deliveries in the order it
//! scripts them, and what it checks of a delivery that failed or waited); and
//! lessons/07-at-least-once/src/judge.rs, the rule every scenario checks. What a broken rule says
//! is worded in lessons/07-at-least-once/src/violation.rs, and chapter 7 of the book tells each
//! scenario's story. Every scenario checks the same rule: once the consumer has caught up, every
//! event of the log was handled exactly once.
//!
//! This file is also the lesson's one list of scenarios: the maintainers' checks run these tests,
//! by these names, against every wrong fix in lessons/07-at-least-once/wrong-fixes/, and `cargo
//! repeat 07` counts the ones its checks.rs names.

use at_least_once::{Violation, scenarios, subject};
use rstest::rstest;

/// Passes against the broken consumer too: nothing dies.
#[tokio::test]
async fn a_log_with_duplicates_and_contradictions_is_consumed_once() -> Result<(), Violation> {
    scenarios::consumed_once(subject!(handler::poll)).await
}

/// The fault test: the consumer dies half-way through its batch, and a new one takes over.
#[tokio::test]
async fn a_consumer_that_dies_mid_batch_loses_nothing() -> Result<(), Violation> {
    scenarios::crash_mid_batch_then_restart(subject!(handler::poll)).await
}

/// The same with a cancelled statement.
#[tokio::test]
async fn a_poll_cancelled_mid_batch_loses_nothing() -> Result<(), Violation> {
    scenarios::cancelled_mid_batch_then_restart(subject!(handler::poll)).await
}

/// Another group of the log (another service) is inside a batch: this group's poll does not wait
/// for it, and no scenario's poll may move that group's offset.
#[tokio::test]
async fn another_group_of_the_log_is_left_alone() -> Result<(), Violation> {
    scenarios::another_group_is_not_held_up(subject!(handler::poll)).await
}

/// A second consumer of the group polls while the first is inside its batch: the log's order
/// must hold.
#[tokio::test]
async fn a_second_consumer_of_the_group_waits_its_turn() -> Result<(), Violation> {
    scenarios::a_second_consumer_waits_its_turn(subject!(handler::poll)).await
}

/// A poll that finds fewer events than it asked for, and a log that grows afterwards.
#[tokio::test]
async fn events_appended_after_a_short_poll_are_consumed() -> Result<(), Violation> {
    scenarios::the_log_grows_between_polls(subject!(handler::poll)).await
}

/// Consumers of one group, started together, share the log between them.
#[rstest]
#[case::two_consumers(2)]
#[case::eight_consumers(8)]
#[case::thirty_two_consumers(32)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consumers_released_together_handle_each_event_once(
    #[case] consumers: usize,
) -> Result<(), Violation> {
    scenarios::barrier(subject!(handler::poll), consumers).await
}

/// Over 10,000 events, a producer appending while the consumer polls, and the consumer killed
/// 40 times at random points (the seed is printed on failure; WORKBOOK_SOAK_SEED replays it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_soak_loses_nothing_and_applies_nothing_twice() -> Result<(), Violation> {
    let report = scenarios::soak(subject!(handler::poll), scenarios::SOAK).await?;
    println!("{report}");
    Ok(())
}
