//! Lesson 13's tests, run against `authorize` in this crate's `src/lib.rs`.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.
//!
//! From the handler to the rule that judges it, three files: this one, where each test hands the
//! handler to one scenario (`scenarios::…`); the scenario, in
//! lessons/13-serializable-retry/src/scenarios/ (a fresh database, the deliveries in the order it
//! scripts them, the conflicts it injects); and lessons/13-serializable-retry/src/judge.rs, the
//! rule every scenario checks. What a broken rule says is worded in
//! lessons/13-serializable-retry/src/violation.rs, and chapter 13 of the book tells each
//! scenario's story. Every scenario checks the same rule: the shared limit holds, each
//! authorization is decided once, a transaction the database aborted for a conflict is run again
//! (a bounded number of times) and no other error is, and the attempts reported are the
//! attempts the database saw.
//!
//! This file is also the lesson's one list of scenarios: the maintainers' checks run these tests,
//! by these names, against every wrong fix in lessons/13-serializable-retry/wrong-fixes/, and
//! `cargo repeat 13` counts the ones its checks.rs names.

use serializable_retry::{Violation, scenarios, subject};

/// Passes against the shipped exercise too: one delivery at a time never conflicts.
#[tokio::test]
async fn one_after_another_each_authorization_is_decided_once() -> Result<(), Violation> {
    scenarios::decided_one_after_another(subject!(handler::authorize)).await
}

/// Scripted: write skew between two cards, refused at the delivery's COMMIT.
#[tokio::test]
async fn an_approval_refused_at_commit_is_decided_again() -> Result<(), Violation> {
    scenarios::spec_test(subject!(handler::authorize), "write_skew.spec", 0).await
}

/// Scripted: the same card updated by another worker, refused at the delivery's UPDATE.
#[tokio::test]
async fn an_approval_refused_at_its_update_is_decided_again() -> Result<(), Violation> {
    scenarios::spec_test(subject!(handler::authorize), "lost_update.spec", 0).await
}

/// Scripted: a copy of the event while the first delivery is inside its transaction.
#[tokio::test]
async fn a_copy_racing_an_uncommitted_decision_is_a_duplicate() -> Result<(), Violation> {
    scenarios::spec_test(subject!(handler::authorize), "copy_race.spec", 0).await
}

/// The database fails the first three attempts with 40001.
#[tokio::test]
async fn three_conflicts_in_a_row_then_an_approval_after_four_attempts() -> Result<(), Violation> {
    scenarios::conflicts_three_times(subject!(handler::authorize)).await
}

/// The database breaks a deadlock by aborting the first two attempts (40P01).
#[tokio::test]
async fn two_deadlocks_in_a_row_then_an_approval_after_three_attempts() -> Result<(), Violation> {
    scenarios::deadlocks_twice(subject!(handler::authorize)).await
}

/// The database fails every attempt with 40001.
#[tokio::test]
async fn a_conflict_that_never_ends_is_given_up_on() -> Result<(), Violation> {
    scenarios::conflicts_every_time(subject!(handler::authorize)).await
}

/// A card never issued: an error no retry can change.
#[tokio::test]
async fn an_unknown_card_fails_once_and_is_not_retried() -> Result<(), Violation> {
    scenarios::unknown_card(subject!(handler::authorize)).await
}

/// The worker's connection is lost while its COMMIT waits; the network sends the event again.
#[tokio::test]
async fn a_delivery_killed_during_commit_is_decided_once_when_redelivered() -> Result<(), Violation>
{
    scenarios::spec_test(subject!(handler::authorize), "failed.spec", 0).await
}

/// The same with the COMMIT cancelled: the delivery says it failed.
#[tokio::test]
async fn a_delivery_cancelled_during_commit_is_decided_once_when_redelivered()
-> Result<(), Violation> {
    scenarios::spec_test(subject!(handler::authorize), "failed.spec", 1).await
}
