//! Lesson 12's tests, run against `create_payment` and `complete` in this crate's `src/lib.rs`
//! and the table in its `migrations/`, behind lesson 11's HTTP API, in front of a card provider
//! that is a second HTTP API.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.
//!
//! From the handler to the rule that judges it, three files: this one, where each test hands the
//! crate to one scenario (`scenarios::…`); the scenario, in lessons/12-atomic-phases/src/
//! scenarios.rs (a fresh database, the API, the provider, the requests and the completer in the
//! order it scripts them); and lessons/12-atomic-phases/src/judge.rs, the rule every scenario
//! checks: one charge at the provider for one request, one record of it in our books, and the
//! client's last answer that payment. What a broken rule says is worded in
//! lessons/12-atomic-phases/src/violation.rs, and chapter 12 of the book tells each story.
//!
//! This file is also the lesson's one list of scenarios: the maintainers' checks run these tests,
//! by these names, against every wrong fix in lessons/12-atomic-phases/wrong-fixes/, and `cargo
//! repeat 12` counts the ones its checks.rs names.

use atomic_phases::{Violation, scenarios, subject};
use rstest::rstest;

/// The provider charges and hangs up; the retry after the lease charges nothing more.
#[tokio::test]
async fn a_provider_that_hangs_up_charges_once() -> Result<(), Violation> {
    scenarios::provider_hangs_up_then_retried(subject!(handler)).await
}

/// The provider fails before charging; the retry in the lease waits, the one after it pays.
#[tokio::test]
async fn a_provider_that_fails_is_retried_after_the_lease() -> Result<(), Violation> {
    scenarios::provider_fails_then_retried(subject!(handler)).await
}

/// Scripted: the first request wakes up after its key was taken over, and records nothing.
#[tokio::test]
async fn a_zombie_records_nothing() -> Result<(), Violation> {
    scenarios::zombie_wakes_after_the_key_was_taken_over(subject!(handler)).await
}

/// Scripted: the request dies between its phases; the completer finishes it.
#[tokio::test]
async fn a_request_that_dies_between_phases_is_completed() -> Result<(), Violation> {
    scenarios::dies_between_phases_then_completed(subject!(handler)).await
}

/// Scripted: the completer leaves a request that holds its lease alone.
#[tokio::test]
async fn the_completer_leaves_a_live_request_alone() -> Result<(), Violation> {
    scenarios::completer_leaves_a_live_lease_alone(subject!(handler)).await
}

/// Scripted: a request waiting on a slow provider holds up no other client's.
#[tokio::test]
async fn a_slow_provider_holds_up_no_one() -> Result<(), Violation> {
    scenarios::slow_provider_holds_up_no_one(subject!(handler)).await
}

/// A client's key used again after our window is a new payment: a charge of its own.
#[tokio::test]
async fn a_key_used_again_after_the_window_is_a_new_payment() -> Result<(), Violation> {
    scenarios::key_used_again_after_the_window(subject!(handler)).await
}

/// A client's key of 255 characters, the longest the API accepts, ends in the payment.
#[tokio::test]
async fn the_longest_key_the_api_accepts_is_charged() -> Result<(), Violation> {
    scenarios::longest_key_is_charged(subject!(handler)).await
}

/// A client's retries, all at once: while the provider hangs up, and again after the lease.
#[rstest]
#[case::two_requests(2)]
#[case::eight_requests(8)]
#[case::thirty_two_requests(32)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_released_together_charge_once(#[case] workers: usize) -> Result<(), Violation> {
    scenarios::barrier(subject!(handler), workers).await
}
