//! Lesson 13's tests, run against `authorize` in this crate's `src/lib.rs`.
//!
//! From a test to the rule it checks: the spec that scripts its race
//! (lessons/13-serializable-retry/specs/, where each permutation's `test` line names its test); the
//! one function that plays every spec of the lesson and hands what happened to the rule (`play`, in
//! lessons/13-serializable-retry/src/lesson.rs, which is the lesson as the kit knows it); and the
//! rule itself, lessons/13-serializable-retry/src/judge.rs (the shared limit holds, each
//! authorization is decided once, a transaction the database aborted for a conflict is run again, a
//! bounded number of times, and no other error is, and the attempts reported are the attempts the
//! database saw). What a broken rule says is worded in
//! lessons/13-serializable-retry/src/violation.rs. The line below runs every test; chapter 13 of
//! the book tells each story.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.

fn main() -> std::process::ExitCode {
    serializable_retry::subject!(handler::authorize).tested_by::<serializable_retry::Lesson>()
}
