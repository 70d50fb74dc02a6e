//! Lesson 04's tests, run against `apply_payment_result` in this crate's `src/lib.rs`.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.
//!
//! From the handler to the rule that judges it, three files: this one, where each test hands the
//! handler to one scenario (`scenarios::…`); the scenario, in lessons/order-saga/src/scenarios/ (a
//! fresh database, the deliveries in the order it scripts them, and what it checks of a delivery
//! that failed or waited); and lessons/order-saga/src/judge.rs, the rule every scenario checks.
//! What a broken rule says is worded in lessons/order-saga/src/violation.rs, and chapter 4 of the
//! book tells each scenario's story.
//!
//! This file is also the lesson's one list of scenarios: the maintainers' checks run these tests,
//! by these names, against every wrong fix in lessons/04-for-update/wrong-fixes/, and `cargo repeat
//! 04` counts the ones its checks.rs names.

use order_saga::{Mix, Violation, scenarios, subject};
use rstest::rstest;

/// The case only the terminal-state guard catches: a new event id for a confirmed order.
#[tokio::test]
async fn a_late_failure_cannot_flip_a_confirmed_order() -> Result<(), Violation> {
    scenarios::late_failure_after_confirmation(subject!(handler::apply_payment_result)).await
}

/// The case only the dedupe guard catches: a redelivery while the order is still pending.
#[tokio::test]
async fn a_redelivered_instalment_is_counted_once() -> Result<(), Violation> {
    scenarios::redelivered_instalment(subject!(handler::apply_payment_result)).await
}

/// Scripted, not timed: a contradicting event arrives while the first is inside its
/// transaction.
#[tokio::test]
async fn contradicting_events_racing_for_one_order_resolve_it_once() -> Result<(), Violation> {
    scenarios::contradicting_events_race(subject!(handler::apply_payment_result)).await
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

/// The barrier test with no duplicate ids at all: every worker has an event of its own.
#[rstest]
#[case::two_workers(2)]
#[case::eight_workers(8)]
#[case::thirty_two_workers(32)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_released_together_resolve_the_order_once(
    #[case] workers: usize,
) -> Result<(), Violation> {
    scenarios::barrier(
        subject!(handler::apply_payment_result),
        Mix::Contradicting,
        workers,
    )
    .await
}
