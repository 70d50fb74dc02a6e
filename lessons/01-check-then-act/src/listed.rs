//! Lesson 01's tests, as data: every permutation of its specs (`specs/*.spec`) that names a test
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
    // Passes against the broken handler too: see "Why a sequential test proves nothing".
    Rust::once("a_redelivery_after_the_first_changes_nothing"),
    // Only a duplicate is "already applied": a real failure stays an error.
    Rust::once("an_event_for_an_unknown_account_is_an_error"),
    // Two different events racing for one account both credit it: neither is a duplicate.
    Rust::once("two_events_racing_for_one_account_both_credit"),
    // An event for another account goes through while one account's row is locked.
    Rust::once("an_event_for_another_account_does_not_wait"),
    // The essay's barrier test, on a runtime with real parallelism: a race the exercise loses.
    Rust {
        name: "workers_released_together_credit_each_event_once",
        repeat: true,
        multi_thread: true,
        cases: &[
            ("two_workers", "2"),
            ("eight_workers", "8"),
            ("thirty_two_workers", "32"),
        ],
    },
];

/// Every test of the lesson, read once.
pub static LISTED: LazyLock<Listed> = LazyLock::new(|| Listed::new(&SHIPPED, RUST));

/// Plays the test `test` against `subject`, as `cargo test` does.
pub async fn play<H: Handler>(test: &str, subject: Subject<H>) -> Result<(), Violation> {
    let listed = LISTED.test(test);
    if let Some((file, permutation)) = listed.spec {
        return spec_test(subject, file, permutation).await;
    }
    match test.split("::").next().unwrap_or(test) {
        "a_redelivery_after_the_first_changes_nothing" => {
            scenarios::sequential_redelivery(subject).await
        }
        "an_event_for_an_unknown_account_is_an_error" => scenarios::unknown_account(subject).await,
        "two_events_racing_for_one_account_both_credit" => {
            scenarios::two_events_race_for_one_account(subject).await
        }
        "an_event_for_another_account_does_not_wait" => {
            scenarios::other_accounts_do_not_wait(subject).await
        }
        "workers_released_together_credit_each_event_once" => {
            scenarios::barrier(subject, LISTED.case(test)).await
        }
        other => panic!("lesson 01 lists {other} but plays no scenario by that name"),
    }
}

/// The exercise's and the solution's test binary: every test, against `subject`.
pub fn harness<H: Handler + Send + Sync + 'static>(subject: Subject<H>) -> ExitCode {
    kit::harness::main(&LISTED, move |test| play(test, subject.clone()))
}
