//! Every lesson's exercise fails for the reason the lesson teaches, its solution passes, and
//! both run the same test file. This runs in the root `cargo test`; students run their own
//! exercise instead (`cargo test -p exercise-01-check-then-act`).
//!
//! The tests return their complaint as an error rather than panicking, so that a failure prints
//! the explanation and not a backtrace.

use check_then_act::{Violation, ViolationKind, scenarios};
use verify::{LESSONS, lesson_01};

/// Said whenever the shipped exercise unexpectedly passes: the usual reason is a student who
/// solved it and then ran the root suite.
const SHIPPED: &str = "This checks the exercise *as shipped*. If you solved it, that is why: \
                       run your own tests with `cargo test -p exercise-01-check-then-act`, and \
                       restore the shipped files (`cargo workbook reset NN`) before running the \
                       root suite.";

#[test]
fn every_exercise_and_its_solution_share_one_test_file() -> Result<(), String> {
    for lesson in LESSONS {
        if let Some(problem) = lesson.test_file_mismatch() {
            return Err(format!("lesson {}: {problem}", lesson.number));
        }
    }
    Ok(())
}

#[tokio::test]
async fn lesson_01_exercise_double_credits_under_the_forced_race() -> Result<(), String> {
    let violation = expect_intended(scenarios::forced_interleaving(lesson_01::exercise()).await)?;
    let trace = violation
        .trace
        .ok_or("a scripted scenario records its trace")?;
    insta::assert_snapshot!("exercise_01_forced_interleaving_fails", trace.to_string());
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lesson_01_exercise_double_credits_under_the_barrier() -> Result<(), String> {
    expect_intended(scenarios::barrier(lesson_01::exercise(), 8).await).map(drop)
}

/// The chapter's point: the sequential test cannot tell the broken handler from the fix.
#[tokio::test]
async fn lesson_01_exercise_passes_the_sequential_test() -> Result<(), Violation> {
    scenarios::sequential_redelivery(lesson_01::exercise()).await
}

#[tokio::test]
async fn lesson_01_with_only_the_key_the_duplicate_surfaces_as_an_error() -> Result<(), String> {
    match scenarios::forced_interleaving(lesson_01::key_only()).await {
        Err(Violation {
            kind: ViolationKind::DuplicateSurfacedAsError { .. },
            trace: Some(trace),
            ..
        }) => {
            insta::assert_snapshot!("exercise_01_with_only_the_key", trace.to_string());
            Ok(())
        }
        Err(other) => Err(format!(
            "with the key but no 23505 handling, expected the duplicate to surface as an \
             error; got: {other}"
        )),
        Ok(()) => Err(format!(
            "with the key but no 23505 handling, the forced interleaving passed. {SHIPPED}"
        )),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lesson_01_solution_passes_every_scenario() -> Result<(), Violation> {
    scenarios::sequential_redelivery(lesson_01::solution()).await?;
    scenarios::forced_interleaving(lesson_01::solution()).await?;
    for workers in [2, 8, 32] {
        scenarios::barrier(lesson_01::solution(), workers).await?;
    }
    Ok(())
}

/// The exercise must fail, and for the lesson's reason: a setup error or any other violation
/// does not count.
fn expect_intended(result: Result<(), Violation>) -> Result<Violation, String> {
    match result {
        Err(violation) if lesson_01::is_intended(&violation.kind) => Ok(violation),
        Err(violation) => Err(format!(
            "the shipped exercise failed, but not by double-crediting: {violation}"
        )),
        Ok(()) => Err(format!("the shipped exercise passed. {SHIPPED}")),
    }
}
