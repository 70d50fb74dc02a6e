//! Lesson 05's tests, run against `apply_payment_result` in this crate's `src/lib.rs`.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.
//!
//! From the handler to the rule that judges it, three files: this one, where each test hands the
//! handler to one scenario (`scenarios::…`); the scenario, in lessons/order-saga/src/scenarios/ (a
//! fresh database, the deliveries in the order it scripts them, and what it checks of a delivery
//! that failed or waited); and lessons/order-saga/src/judge.rs, the rule every scenario checks.
//! What a broken rule says is worded in lessons/order-saga/src/violation.rs, and chapter 5 of the
//! book tells each scenario's story. Every scenario checks the outbox invariant: a resolved order
//! has exactly one outbox row saying so, and a pending order has none.
//!
//! This file is also the lesson's one list of scenarios: the maintainers' checks run these tests,
//! by these names, against every wrong fix in lessons/05-outbox/wrong-fixes/, and `cargo repeat 05`
//! counts the ones its checks.rs names.

use order_saga::{Mix, Violation, scenarios, subject};
use rstest::rstest;

/// Passes against the broken handler too: nothing dies between the two commits.
#[tokio::test]
async fn a_redelivery_after_the_first_changes_nothing() -> Result<(), Violation> {
    scenarios::redelivered_after_commit(subject!(handler::apply_payment_result)).await
}

/// The fault test: the worker dies between the order's change and its outbox row, and the
/// broker delivers the event again.
#[tokio::test]
async fn a_delivery_that_dies_before_announcing_is_announced_after_all() -> Result<(), Violation> {
    scenarios::crash_before_the_outbox_row_then_redelivery(subject!(handler::apply_payment_result))
        .await
}

/// Lesson 03's fault test still holds: dying before the change loses nothing.
#[tokio::test]
async fn a_delivery_that_dies_before_the_change_is_applied_by_the_redelivery()
-> Result<(), Violation> {
    scenarios::crash_before_the_effect_then_redelivery(subject!(handler::apply_payment_result))
        .await
}

/// The same race while another session reads the order under a share lock: the deliveries
/// reach their writes before anything stops them.
#[tokio::test]
async fn contradicting_events_racing_past_a_reader_resolve_it_once() -> Result<(), Violation> {
    scenarios::contradicting_events_race_past_a_reader(subject!(handler::apply_payment_result))
        .await
}

/// A delivery cancelled while it waits (as by a statement timeout) keeps nothing, and leaves
/// nothing in its session: the redelivery, on another connection, applies the event.
#[tokio::test]
async fn a_redelivery_after_a_cancelled_delivery_applies_the_event() -> Result<(), Violation> {
    scenarios::cancelled_delivery_then_redelivery(subject!(handler::apply_payment_result)).await
}

/// Two different instalments racing for one order both count: neither is a duplicate.
#[tokio::test]
async fn instalments_racing_for_one_order_both_count() -> Result<(), Violation> {
    scenarios::instalments_race_for_one_order(subject!(handler::apply_payment_result)).await
}

/// A payment for another order goes through while one order's row is locked.
#[tokio::test]
async fn a_payment_for_another_order_does_not_wait() -> Result<(), Violation> {
    scenarios::other_orders_do_not_wait(subject!(handler::apply_payment_result)).await
}

/// Duplicates and contradictions at once, released together.
#[rstest]
#[case::two_workers(2)]
#[case::eight_workers(8)]
#[case::thirty_two_workers(32)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_released_together_announce_the_order_once(
    #[case] workers: usize,
) -> Result<(), Violation> {
    scenarios::barrier(subject!(handler::apply_payment_result), Mix::Mixed, workers).await
}
