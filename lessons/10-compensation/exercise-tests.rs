//! Lesson 10's tests, run against `settle_reservation` in this crate's `src/lib.rs`.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.
//!
//! From the handler to the rule that judges it, three files: this one, where each test hands the
//! handler to one scenario (`scenarios::…`); the scenario, in
//! lessons/10-compensation/src/scenarios/ (a fresh database, the deliveries in the order it scripts
//! them, and what it checks of a delivery that failed or waited); and
//! lessons/10-compensation/src/judge.rs, the rule every scenario checks. What a broken rule says is
//! worded in lessons/10-compensation/src/violation.rs, and chapter 10 of the book tells each
//! scenario's story. Every scenario checks the same rule: each reservation is settled once, by the
//! first event that reaches it, and a release returns its units once and is announced once.
//!
//! This file is also the lesson's one list of scenarios: the maintainers' checks run these tests,
//! by these names, against every wrong fix in lessons/10-compensation/wrong-fixes/, and `cargo
//! repeat 10` counts the ones its checks.rs names.

use compensation::{Violation, scenarios, subject};
use rstest::rstest;

/// Passes against the broken handler too: each delivery finds the one before committed.
#[tokio::test]
async fn a_redelivery_or_a_late_event_after_the_first_changes_nothing() -> Result<(), Violation> {
    scenarios::redelivered_after_commit(subject!(handler::settle_reservation)).await
}

/// Scripted, not timed: the same payment.failed while the first delivery is inside its
/// transaction.
#[tokio::test]
async fn a_duplicate_racing_an_uncommitted_release_releases_nothing() -> Result<(), Violation> {
    scenarios::duplicate_races_an_uncommitted_release(subject!(handler::settle_reservation)).await
}

/// A failed payment and a cancellation, both asking for the same release.
#[tokio::test]
async fn a_failure_and_a_cancellation_release_the_stock_once() -> Result<(), Violation> {
    scenarios::failure_races_a_cancellation(subject!(handler::settle_reservation)).await
}

/// A success and a failure for one order: the first settles it, the other changes nothing.
#[tokio::test]
async fn a_success_and_a_failure_never_both_settle_the_reservation() -> Result<(), Violation> {
    scenarios::success_races_a_failure(subject!(handler::settle_reservation)).await
}

/// The worker dies half-way through the release, and the broker delivers the event again.
#[tokio::test]
async fn a_release_killed_half_way_happens_once_when_redelivered() -> Result<(), Violation> {
    scenarios::killed_mid_release_then_redelivery(subject!(handler::settle_reservation)).await
}

/// The same with a cancelled statement: the delivery fails, says so, and the redelivery
/// releases.
#[tokio::test]
async fn a_release_cancelled_half_way_happens_once_when_redelivered() -> Result<(), Violation> {
    scenarios::cancelled_mid_release_then_redelivery(subject!(handler::settle_reservation)).await
}

/// The inventory's database is restored from a backup and the event replayed: the release
/// happens again in the restored tables, under the id the rest of the saga already heard.
#[tokio::test]
async fn a_replay_after_a_restore_is_announced_under_the_same_id() -> Result<(), Violation> {
    scenarios::replayed_after_a_restore(subject!(handler::settle_reservation)).await
}

/// The cancellation arrives before the reservation it cancels: nothing may be held for the
/// order once the reservation comes.
#[tokio::test]
async fn a_cancellation_before_the_reservation_leaves_nothing_held() -> Result<(), Violation> {
    scenarios::cancelled_before_the_reservation(subject!(handler::settle_reservation)).await
}

/// Scripted: the cancellation reaches a worker while the reservation is inside its
/// transaction.
#[tokio::test]
async fn a_cancellation_racing_the_reservation_releases_it_once() -> Result<(), Violation> {
    scenarios::cancellation_races_the_reservation(subject!(handler::settle_reservation)).await
}

/// A release for another order goes through while one order's reservation is locked.
#[tokio::test]
async fn a_release_for_another_order_does_not_wait() -> Result<(), Violation> {
    scenarios::other_orders_do_not_wait(subject!(handler::settle_reservation)).await
}

/// Duplicates and contradicting events to many workers at once.
#[rstest]
#[case::two_workers(2)]
#[case::eight_workers(8)]
#[case::thirty_two_workers(32)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_released_together_settle_the_reservation_once(
    #[case] workers: usize,
) -> Result<(), Violation> {
    scenarios::barrier(subject!(handler::settle_reservation), workers).await
}
