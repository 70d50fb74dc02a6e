//! Lesson 02's tests, run against `apply_payment_result` in this crate's `src/lib.rs`.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.
//!
//! From the handler to the rule that judges it, three files: this one, where each test hands the
//! handler to one scenario (`scenarios::…`); the scenario, in lessons/order-saga/src/scenarios/ (a
//! fresh database, the deliveries in the order it scripts them, and what it checks of a delivery
//! that failed or waited); and lessons/order-saga/src/judge.rs, the rule every scenario checks.
//! What a broken rule says is worded in lessons/order-saga/src/violation.rs, and chapter 2 of the
//! book tells each scenario's story.
//!
//! This file is also the lesson's one list of scenarios: the maintainers' checks run these tests,
//! by these names, against every wrong fix in lessons/02-on-conflict/wrong-fixes/, and `cargo
//! repeat 02` counts the ones its checks.rs names.

use order_saga::{Mix, Violation, scenarios, subject};
use rstest::rstest;

/// Passes against the broken handler too: the pre-check sees a redelivery that comes after.
#[tokio::test]
async fn a_redelivery_after_the_first_changes_nothing() -> Result<(), Violation> {
    scenarios::redelivered_after_commit(subject!(handler::apply_payment_result)).await
}

/// Only a duplicate is "already applied": a real failure stays an error.
#[tokio::test]
async fn an_event_for_an_unknown_order_is_an_error() -> Result<(), Violation> {
    scenarios::event_for_an_unknown_order(subject!(handler::apply_payment_result)).await
}

/// Scripted, not timed: the duplicate arrives while the first delivery is inside its
/// transaction.
#[tokio::test]
async fn a_duplicate_racing_an_uncommitted_delivery_changes_nothing() -> Result<(), Violation> {
    scenarios::duplicate_races_an_uncommitted_delivery(subject!(handler::apply_payment_result))
        .await
}

/// When the first delivery's transaction rolls back, the duplicate waiting on it applies the
/// event.
#[tokio::test]
async fn a_duplicate_waiting_on_a_delivery_that_dies_applies_the_event() -> Result<(), Violation> {
    scenarios::first_delivery_dies_while_a_duplicate_waits(subject!(handler::apply_payment_result))
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

/// The essay's barrier test: every worker has the same event.
#[rstest]
#[case::two_workers(2)]
#[case::eight_workers(8)]
#[case::thirty_two_workers(32)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_released_together_apply_each_event_once(
    #[case] workers: usize,
) -> Result<(), Violation> {
    scenarios::barrier(
        subject!(handler::apply_payment_result),
        Mix::SameEvent,
        workers,
    )
    .await
}
