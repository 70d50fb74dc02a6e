//! Lesson 07's tests, run against `poll` in this crate's `src/lib.rs`.
//!
//! From a test to the rule it checks: the spec that scripts its race
//! (lessons/07-at-least-once/specs/, where each permutation's `test` line names its test); the one
//! function that plays every spec of the lesson and hands what happened to the rule (`play`, in
//! lessons/07-at-least-once/src/lesson.rs, which is the lesson as the kit knows it); and the rule
//! itself, lessons/07-at-least-once/src/judge.rs: once the consumer has caught up, every event of
//! the log was handled exactly once. What a broken rule says is worded in
//! lessons/07-at-least-once/src/violation.rs. The scenarios data cannot say yet (the soak among
//! them) are Rust, in lessons/07-at-least-once/src/scenarios/. The line below runs every test;
//! chapter 7 of the book tells each story.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.

fn main() -> std::process::ExitCode {
    at_least_once::subject!(handler::poll).tested_by::<at_least_once::Lesson>()
}
