//! Lesson 09's tests, run against `prune` in this crate's `src/lib.rs` and the table in its
//! `migrations/`.
//!
//! From a test to the rules it checks: the spec that scripts its race (lessons/09-retention/specs/,
//! where each permutation's `test` line names its test); the one function that plays every spec of
//! the lesson and hands what happened to the rules (`play`, in lessons/09-retention/src/lesson.rs,
//! which is the lesson as the kit knows it); and the rules themselves,
//! lessons/09-retention/src/judge.rs: each credit is applied once, however its copies arrive; and
//! once the prune has run, nothing is kept past the retention limit. What a broken rule says is
//! worded in lessons/09-retention/src/violation.rs. The scenarios data cannot say yet are Rust, in
//! lessons/09-retention/src/scenarios/. The line below runs every test; chapter 9 of the book tells
//! each story.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.

fn main() -> std::process::ExitCode {
    retention::subject!(handler::prune).tested_by::<retention::Lesson>()
}
