//! Lesson 01's tests, run against `apply_credit` in this crate's `src/lib.rs`.
//!
//! From a test to the rule it checks: the spec that scripts its race
//! (lessons/01-check-then-act/specs/, where each permutation's `test` line names its test); the one
//! function that plays every spec of the lesson and hands what happened to the rule (`play`, in
//! lessons/01-check-then-act/src/lesson.rs, which is the lesson as the kit knows it); and the rule
//! itself, lessons/01-check-then-act/src/judge.rs. What a broken rule says is worded in
//! lessons/01-check-then-act/src/violation.rs. The line below runs every test; chapter 1 of the
//! book tells each story.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.

fn main() -> std::process::ExitCode {
    check_then_act::subject!(handler::apply_credit).tested_by::<check_then_act::Lesson>()
}
