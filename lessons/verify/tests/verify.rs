//! Every lesson's exercise fails for the reason the lesson teaches, its solution passes, and
//! both run the same test file. This runs in the root `cargo test`; students run their own
//! exercise instead (`cargo test -p exercise-01-check-then-act`).

use check_then_act::{ViolationKind, scenarios};
use verify::{LESSONS, lesson_01};

#[test]
fn every_exercise_and_its_solution_share_one_test_file() {
    for lesson in LESSONS {
        assert_eq!(
            lesson.test_files_differ(),
            Vec::<String>::new(),
            "lesson {}: exercises/{0} and solutions/{0} must have identical test files",
            lesson.folder
        );
    }
}

#[tokio::test]
async fn lesson_01_exercise_double_credits_under_the_forced_race() {
    let violation = scenarios::forced_interleaving(lesson_01::exercise())
        .await
        .expect_err("the shipped exercise must fail the forced interleaving");
    assert!(
        lesson_01::is_intended(&violation.kind),
        "the shipped exercise failed, but not by double-crediting: {violation}"
    );
    let trace = violation
        .trace
        .expect("a scripted scenario records its trace");
    insta::assert_snapshot!("exercise_01_forced_interleaving_fails", trace.to_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lesson_01_exercise_double_credits_under_the_barrier() {
    let violation = scenarios::barrier(lesson_01::exercise(), 8)
        .await
        .expect_err("the shipped exercise must fail the barrier test");
    assert!(lesson_01::is_intended(&violation.kind), "{violation}");
}

/// The chapter's point: the sequential test cannot tell the broken handler from the fix.
#[tokio::test]
async fn lesson_01_exercise_passes_the_sequential_test() {
    scenarios::sequential_redelivery(lesson_01::exercise())
        .await
        .expect("a sequential redelivery never opens the race window");
}

#[tokio::test]
async fn lesson_01_with_only_the_key_the_duplicate_surfaces_as_an_error() {
    let violation = scenarios::forced_interleaving(lesson_01::key_only())
        .await
        .expect_err("with the key but no 23505 handling, the loser returns an error");
    assert!(
        matches!(
            violation.kind,
            ViolationKind::DuplicateSurfacedAsError { .. }
        ),
        "{violation}"
    );
    let trace = violation
        .trace
        .expect("a scripted scenario records its trace");
    insta::assert_snapshot!("exercise_01_with_only_the_key", trace.to_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lesson_01_solution_passes_every_scenario() {
    scenarios::sequential_redelivery(lesson_01::solution())
        .await
        .unwrap();
    scenarios::forced_interleaving(lesson_01::solution())
        .await
        .unwrap();
    for workers in [2, 8, 32] {
        scenarios::barrier(lesson_01::solution(), workers)
            .await
            .unwrap();
    }
}
