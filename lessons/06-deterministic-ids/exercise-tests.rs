//! Lesson 06's tests, run against `take_payment` in this crate's `src/lib.rs`.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.
//!
//! From the handler to the rule that judges it, three files: this one, where each test hands the
//! handler to one scenario (`scenarios::…`); the scenario, in
//! lessons/06-deterministic-ids/src/scenarios/ (a fresh database, the deliveries in the order it
//! scripts them, and what it checks of a delivery that failed or waited); and
//! lessons/06-deterministic-ids/src/judge.rs, the rule every scenario checks. What a broken rule
//! says is worded in lessons/06-deterministic-ids/src/violation.rs, and chapter 6 of the book tells
//! each scenario's story. Every scenario checks the same rule: the card network charged the order
//! once, and the saga was told under one id.
//!
//! This file is also the lesson's one list of scenarios: the maintainers' checks run these tests,
//! by these names, against every wrong fix in lessons/06-deterministic-ids/wrong-fixes/, and `cargo
//! repeat 06` counts the ones its checks.rs names.

use deterministic_ids::{Violation, scenarios, subject};
use rstest::rstest;

/// Passes against the broken handler too: the second delivery finds the first one's record.
#[tokio::test]
async fn a_redelivery_after_the_first_charges_nothing() -> Result<(), Violation> {
    scenarios::redelivered_after_commit(subject!(handler::take_payment)).await
}

/// The fault test: the worker dies after charging, before committing, and the broker delivers
/// the order again.
#[tokio::test]
async fn a_delivery_that_dies_after_charging_is_not_charged_again() -> Result<(), Violation> {
    scenarios::crash_after_the_charge_then_redelivery(subject!(handler::take_payment)).await
}

/// The other crash point: the worker dies while the network is taking the charge, before it
/// has; whatever the delivery committed before the call must not stop the redelivery paying.
#[tokio::test]
async fn a_delivery_that_dies_while_charging_is_charged_on_redelivery() -> Result<(), Violation> {
    scenarios::crash_during_the_charge_then_redelivery(subject!(handler::take_payment)).await
}

/// The same with a cancelled statement: the delivery fails, says so, and the redelivery pays.
#[tokio::test]
async fn a_delivery_cancelled_after_charging_is_not_charged_again() -> Result<(), Violation> {
    scenarios::cancelled_after_the_charge_then_redelivery(subject!(handler::take_payment)).await
}

/// Scripted, not timed: the second delivery starts while the first is inside its transaction.
#[tokio::test]
async fn a_duplicate_racing_an_uncommitted_delivery_charges_nothing() -> Result<(), Violation> {
    scenarios::duplicate_races_an_uncommitted_delivery(subject!(handler::take_payment)).await
}

/// The step's database is restored from a backup and the order replayed: only what the
/// handler derives from the event can recognise it.
#[tokio::test]
async fn a_replay_after_a_restore_is_recognised_by_the_network_and_the_saga()
-> Result<(), Violation> {
    scenarios::replayed_after_a_restore(subject!(handler::take_payment)).await
}

/// A payment for another order goes through while one order's payment is being recorded.
#[tokio::test]
async fn a_payment_for_another_order_does_not_wait() -> Result<(), Violation> {
    scenarios::other_orders_do_not_wait(subject!(handler::take_payment)).await
}

/// The same order.created to many workers at once.
#[rstest]
#[case::two_workers(2)]
#[case::eight_workers(8)]
#[case::thirty_two_workers(32)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_released_together_charge_the_order_once(
    #[case] workers: usize,
) -> Result<(), Violation> {
    scenarios::barrier(subject!(handler::take_payment), workers).await
}
