//! Lesson 01's tests, run against `apply_credit` in this crate's `src/lib.rs`.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.
//!
//! From the handler to the rule that judges it, three files: this one, where each test hands the
//! handler to one scenario (`scenarios::…`); the scenario, in
//! lessons/01-check-then-act/src/scenarios/ (a fresh database, the deliveries in the order it
//! scripts them, and what it checks of a delivery that failed or waited); and
//! lessons/01-check-then-act/src/judge.rs, the rule every scenario checks. What a broken rule says
//! is worded in lessons/01-check-then-act/src/violation.rs, and chapter 1 of the book tells each
//! scenario's story.
//!
//! This file is also the lesson's one list of scenarios: the maintainers' checks run these tests,
//! by these names, against every wrong fix in lessons/01-check-then-act/wrong-fixes/, and `cargo
//! repeat 01` counts the ones its checks.rs names.

use check_then_act::{Violation, scenarios, subject};
use rstest::rstest;

/// Passes against the broken handler too: see "Why a sequential test proves nothing".
#[tokio::test]
async fn a_redelivery_after_the_first_changes_nothing() -> Result<(), Violation> {
    scenarios::sequential_redelivery(subject!(handler::apply_credit)).await
}

/// Only a duplicate is "already applied": a real failure stays an error.
#[tokio::test]
async fn an_event_for_an_unknown_account_is_an_error() -> Result<(), Violation> {
    scenarios::unknown_account(subject!(handler::apply_credit)).await
}

/// Scripted, not timed: the second delivery starts while the first is inside its transaction.
#[tokio::test]
async fn a_delivery_racing_an_uncommitted_one_changes_nothing() -> Result<(), Violation> {
    scenarios::spec_test(subject!(handler::apply_credit), "forced.spec", 0).await
}

/// A delivery cancelled while it waits (as by a statement timeout) keeps nothing, and leaves
/// nothing in its session: the redelivery, on another connection, credits the event.
#[tokio::test]
async fn a_redelivery_after_a_cancelled_delivery_credits_the_event() -> Result<(), Violation> {
    scenarios::spec_test(subject!(handler::apply_credit), "failed.spec", 0).await
}

/// A delivery whose worker dies while it waits keeps nothing: the redelivery credits the event.
#[tokio::test]
async fn a_redelivery_after_a_killed_delivery_credits_the_event() -> Result<(), Violation> {
    scenarios::spec_test(subject!(handler::apply_credit), "failed.spec", 1).await
}

/// A duplicate whose wait on the first delivery ends in an error knows nothing yet: the first
/// may roll back, as it does here, and then only the error gets the event delivered again.
#[tokio::test]
async fn a_duplicate_whose_wait_ends_in_an_error_reports_the_error() -> Result<(), Violation> {
    scenarios::spec_test(subject!(handler::apply_credit), "gave_up.spec", 0).await
}

/// Two different events racing for one account both credit it: neither is a duplicate.
#[tokio::test]
async fn two_events_racing_for_one_account_both_credit() -> Result<(), Violation> {
    scenarios::two_events_race_for_one_account(subject!(handler::apply_credit)).await
}

/// An event for another account goes through while one account's row is locked.
#[tokio::test]
async fn an_event_for_another_account_does_not_wait() -> Result<(), Violation> {
    scenarios::other_accounts_do_not_wait(subject!(handler::apply_credit)).await
}

/// The essay's barrier test, on a runtime with real parallelism.
#[rstest]
#[case::two_workers(2)]
#[case::eight_workers(8)]
#[case::thirty_two_workers(32)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_released_together_credit_each_event_once(
    #[case] workers: usize,
) -> Result<(), Violation> {
    scenarios::barrier(subject!(handler::apply_credit), workers).await
}
