//! Lesson 06's tests, run against `take_payment` in this crate's `src/lib.rs`.
//!
//! From a test to the rule it checks: the spec that scripts its race or its crash
//! (lessons/06-deterministic-ids/specs/, where each permutation's `test` line names its test); the
//! one function that plays every spec of the lesson and hands what happened to the rule (`play`, in
//! lessons/06-deterministic-ids/src/lesson.rs, which is the lesson as the kit knows it); and the
//! rule itself, lessons/06-deterministic-ids/src/judge.rs (the card network charged the order once,
//! and the saga was told under one id). What a broken rule says is worded in
//! lessons/06-deterministic-ids/src/violation.rs. The one scenario data cannot say yet is Rust, in
//! lessons/06-deterministic-ids/src/scenarios/replayed.rs. The line below runs every test; chapter
//! 6 of the book tells each story.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.

fn main() -> std::process::ExitCode {
    deterministic_ids::subject!(handler::take_payment).tested_by::<deterministic_ids::Lesson>()
}
