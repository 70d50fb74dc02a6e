//! Lesson 09's tests, run against `prune` in this crate's `src/lib.rs` and the table in its
//! `migrations/`.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.
//!
//! From the handler to the rule that judges it, three files: this one, where each test hands the
//! handler to one scenario (`scenarios::…`); the scenario, in lessons/09-retention/src/scenarios/
//! (a fresh database, the deliveries in the order it scripts them, and what it checks of a delivery
//! that failed or waited); and lessons/09-retention/src/judge.rs, the rule every scenario checks.
//! What a broken rule says is worded in lessons/09-retention/src/violation.rs, and chapter 9 of the
//! book tells each scenario's story. Every scenario checks the same two rules: each credit is
//! applied once, however its copies arrive; and once the prune has run, nothing is kept past the
//! retention limit.
//!
//! This file is also the lesson's one list of scenarios: the maintainers' checks run these tests,
//! by these names, against every wrong fix in lessons/09-retention/wrong-fixes/, and `cargo repeat
//! 09` counts the ones its checks.rs names.

use retention::{Fault, Violation, scenarios, subject};
use rstest::rstest;

/// Passes against the shipped exercise too: nothing here tempts a prune to forget an hour-old
/// row.
#[tokio::test]
async fn a_copy_after_a_prune_changes_nothing() -> Result<(), Violation> {
    scenarios::a_copy_after_a_prune_is_recognised(subject!(handler::prune)).await
}

/// The window's last moment: the prune and a copy of the event arrive together.
#[tokio::test]
async fn a_copy_at_the_end_of_the_window_changes_nothing() -> Result<(), Violation> {
    scenarios::a_copy_at_the_end_of_the_window_is_recognised(subject!(handler::prune)).await
}

/// The window counts from when the consumer received the event, not from when it happened.
#[tokio::test]
async fn a_late_event_is_kept_for_the_whole_window() -> Result<(), Violation> {
    scenarios::a_late_event_is_kept_for_the_window(subject!(handler::prune)).await
}

/// The table shrinks: nothing older than the retention limit is left.
#[tokio::test]
async fn rows_past_the_retention_limit_are_removed() -> Result<(), Violation> {
    scenarios::rows_past_the_retention_limit_are_removed(subject!(handler::prune)).await
}

/// No prune at all: a copy that arrives on the next day must still find the first one's row.
#[tokio::test]
async fn a_copy_after_midnight_changes_nothing() -> Result<(), Violation> {
    scenarios::a_copy_after_midnight_is_recognised(subject!(handler::prune)).await
}

/// A backlog of 5,000 rows goes in batches of at most 1,000, each its own transaction.
#[tokio::test]
async fn a_backlog_is_pruned_in_bounded_batches() -> Result<(), Violation> {
    scenarios::the_backlog_is_pruned_in_bounded_batches(subject!(handler::prune)).await
}

/// Scripted, not timed: a delivery's transaction is open while the prune runs.
#[tokio::test]
async fn the_prune_does_not_wait_for_a_delivery() -> Result<(), Violation> {
    scenarios::the_prune_does_not_wait_for_deliveries(subject!(handler::prune)).await
}

/// The fault tests: another run of the prune holds a row, and this one dies or is cancelled
/// while it waits for it; then the prune runs again.
#[rstest]
#[case::killed(Fault::Killed)]
#[case::cancelled(Fault::Cancelled)]
#[tokio::test]
async fn a_prune_that_fails_is_run_again(#[case] fault: Fault) -> Result<(), Violation> {
    scenarios::a_prune_that_fails_while_it_waits_is_run_again(subject!(handler::prune), fault).await
}

/// The race: eight days of deliveries and copies, the prune released with them each day.
#[rstest]
#[case::two_workers(2)]
#[case::eight_workers(8)]
#[case::thirty_two_workers(32)]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn workers_released_together_with_the_prune_apply_each_credit_once(
    #[case] workers: usize,
) -> Result<(), Violation> {
    scenarios::barrier(subject!(handler::prune), workers).await
}
