//! Lesson 11's tests, run against `create_payment` in this crate's `src/lib.rs` and the table in
//! its `migrations/`, behind a real HTTP API, called with a real HTTP client.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.
//!
//! From the handler to the rule that judges it, three files: this one, where each test hands the
//! handler to one scenario (`scenarios::…`); the scenario, in lessons/11-http-keys/src/scenarios/
//! (a fresh database, the API, the requests in the order it scripts them, and what it checks of a
//! request that failed); and lessons/11-http-keys/src/judge.rs, the rule every scenario checks.
//! What a broken rule says is worded in lessons/11-http-keys/src/violation.rs, and chapter 11 of
//! the book tells each scenario's story. The rule: one payment per key of a client, whatever
//! arrives; every retry of the request that made it gets its response back, byte for byte and
//! marked as a replay (or a 409 with Retry-After); every other request under the key, a 422.
//!
//! This file is also the lesson's one list of scenarios: the maintainers' checks run these tests,
//! by these names, against every wrong fix in lessons/11-http-keys/wrong-fixes/, and `cargo repeat
//! 11` counts the ones its checks.rs names.

use http_keys::{Violation, scenarios, subject};
use rstest::rstest;

/// The first response is lost, the payment refunded, and the request sent again.
#[tokio::test]
async fn a_retry_gets_the_first_response_byte_for_byte() -> Result<(), Violation> {
    scenarios::retried_after_a_refund(subject!(handler::create_payment)).await
}

/// A key reused for a different payment is refused, and changes nothing.
#[tokio::test]
async fn a_key_sent_with_another_request_is_refused() -> Result<(), Violation> {
    scenarios::key_sent_again_with_another_request(subject!(handler::create_payment)).await
}

/// Two clients that choose the same key each get a payment of their own.
#[tokio::test]
async fn another_clients_same_key_is_a_payment_of_its_own() -> Result<(), Violation> {
    scenarios::another_client_sends_the_same_key(subject!(handler::create_payment)).await
}

/// Scripted: another client's request under the same key goes through while acme's waits.
#[tokio::test]
async fn another_clients_request_does_not_wait_for_ours() -> Result<(), Violation> {
    scenarios::another_client_does_not_wait(subject!(handler::create_payment)).await
}

/// Scripted, not timed: the retry arrives while the first request is inside its transaction.
#[tokio::test]
async fn a_retry_racing_an_uncommitted_first_request_pays_nothing() -> Result<(), Violation> {
    scenarios::retry_races_an_uncommitted_first(subject!(handler::create_payment)).await
}

/// Scripted: a different request under the key arrives while the first is being written.
#[tokio::test]
async fn another_request_racing_an_uncommitted_first_is_refused() -> Result<(), Violation> {
    scenarios::another_request_races_an_uncommitted_first(subject!(handler::create_payment)).await
}

/// Scripted: the retry stops waiting for the first request, and is told to come back.
#[tokio::test]
async fn a_retry_that_stops_waiting_is_told_to_come_back() -> Result<(), Violation> {
    scenarios::retry_stops_waiting_for_the_first(subject!(handler::create_payment)).await
}

/// The first request dies half-way; its retry pays, once.
#[tokio::test]
async fn a_request_killed_half_way_leaves_its_key_free() -> Result<(), Violation> {
    scenarios::killed_half_way_then_retried(subject!(handler::create_payment)).await
}

/// The first request dies as it stores its response in the key's row; the retry pays once.
#[tokio::test]
async fn a_request_killed_storing_its_response_pays_once() -> Result<(), Violation> {
    scenarios::killed_storing_its_response_then_retried(subject!(handler::create_payment)).await
}

/// The same with a cancelled statement: the request fails, says so, and its retry pays.
#[tokio::test]
async fn a_request_cancelled_half_way_leaves_its_key_free() -> Result<(), Violation> {
    scenarios::cancelled_half_way_then_retried(subject!(handler::create_payment)).await
}

/// The key is a retry's to the end of its published window, and a new request's after it.
#[tokio::test]
async fn a_key_is_remembered_for_its_window_and_then_forgotten() -> Result<(), Violation> {
    scenarios::forgotten_after_its_window(subject!(handler::create_payment)).await
}

/// The first request's future is dropped half-way; its retry pays, once.
#[tokio::test]
async fn a_request_abandoned_half_way_leaves_its_key_free() -> Result<(), Violation> {
    scenarios::abandoned_half_way_then_retried(subject!(handler::create_payment)).await
}

/// A client's retries, all sent before any answer came back.
#[rstest]
#[case::two_requests(2)]
#[case::eight_requests(8)]
#[case::thirty_two_requests(32)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_released_together_pay_once(#[case] workers: usize) -> Result<(), Violation> {
    scenarios::barrier(subject!(handler::create_payment), workers).await
}
