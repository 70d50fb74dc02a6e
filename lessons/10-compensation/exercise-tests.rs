//! Lesson 10's tests, run against `settle_reservation` in this crate's `src/lib.rs`.
//!
//! From a test to the rule it checks: the spec that scripts its race
//! (lessons/10-compensation/specs/, where each permutation's `test` line names its test); the one
//! function that plays every spec of the lesson and hands what happened to the rule (`play`, in
//! lessons/10-compensation/src/lesson.rs, which is the lesson as the kit knows it); and the rule
//! itself, lessons/10-compensation/src/judge.rs: each reservation is settled once, by the first
//! event that reaches it, and a release returns its units once and is announced once. What a broken
//! rule says is worded in lessons/10-compensation/src/violation.rs. The few scenarios data cannot
//! say yet are Rust, in lessons/10-compensation/src/scenarios/. The line below runs every test;
//! chapter 10 of the book tells each story.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their
//! `[[test]]`, so the solution passes exactly the tests the student runs.

fn main() -> std::process::ExitCode {
    compensation::subject!(handler::settle_reservation).tested_by::<compensation::Lesson>()
}
