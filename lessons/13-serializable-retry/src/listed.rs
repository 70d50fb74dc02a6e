//! Lesson 13's tests, as data: every permutation of its specs (`specs/*.spec`) that names a test
//! (`test NAME`), then the scenarios below, written in Rust because data cannot say them yet.
//! The exercise's and the solution's test file is one call, [`harness`]; the maintainers'
//! checks play the same tests by name ([`play`]).

use std::process::ExitCode;
use std::sync::LazyLock;

use kit::harness::{Listed, Rust};

use crate::scenarios::{self, SHIPPED, spec_test};
use crate::{Handler, Subject, Violation};

/// The scenarios written in Rust, each played by the function of `scenarios` [`play`] names.
const RUST: &[Rust] = &[
    // Passes against the shipped exercise too: one delivery at a time never conflicts.
    Rust::once("one_after_another_each_authorization_is_decided_once"),
    // The database fails the first three attempts with 40001.
    Rust::once("three_conflicts_in_a_row_then_an_approval_after_four_attempts"),
    // The database breaks a deadlock by aborting the first two attempts (40P01).
    Rust::once("two_deadlocks_in_a_row_then_an_approval_after_three_attempts"),
    // The database fails every attempt with 40001.
    Rust::once("a_conflict_that_never_ends_is_given_up_on"),
    // A card never issued: an error no retry can change.
    Rust::once("an_unknown_card_fails_once_and_is_not_retried"),
];

/// Every test of the lesson, read once.
pub static LISTED: LazyLock<Listed> = LazyLock::new(|| Listed::new(&SHIPPED, RUST));

/// Plays the test `test` against `subject`, as `cargo test` does.
pub async fn play<H: Handler>(test: &str, subject: Subject<H>) -> Result<(), Violation> {
    if let Some((file, permutation)) = LISTED.test(test).spec {
        return spec_test(subject, file, permutation).await;
    }
    match test {
        "one_after_another_each_authorization_is_decided_once" => {
            scenarios::decided_one_after_another(subject).await
        }
        "three_conflicts_in_a_row_then_an_approval_after_four_attempts" => {
            scenarios::conflicts_three_times(subject).await
        }
        "two_deadlocks_in_a_row_then_an_approval_after_three_attempts" => {
            scenarios::deadlocks_twice(subject).await
        }
        "a_conflict_that_never_ends_is_given_up_on" => {
            scenarios::conflicts_every_time(subject).await
        }
        "an_unknown_card_fails_once_and_is_not_retried" => scenarios::unknown_card(subject).await,
        other => panic!("lesson 13 lists {other} but plays no scenario by that name"),
    }
}

/// The exercise's and the solution's test binary: every test, against `subject`.
pub fn harness<H: Handler + Send + Sync + 'static>(subject: Subject<H>) -> ExitCode {
    kit::harness::main(&LISTED, move |test| play(test, subject.clone()))
}
