//! Lesson 07's tests, run against `poll` in this crate's `src/lib.rs`.
//!
//! From a test to the rule it checks: the spec that scripts its race
//! (lessons/07-at-least-once/specs/, where each permutation's `test` line names its test); the
//! one function that plays every spec of the lesson and hands what happened to the rule
//! (`play`, in lessons/07-at-least-once/src/scenarios/specs.rs); and the rule itself,
//! lessons/07-at-least-once/src/judge.rs: once the consumer has caught up, every event of the
//! log was handled exactly once. What a broken rule says is worded in
//! lessons/07-at-least-once/src/violation.rs. The scenarios data cannot say yet (the soak among
//! them) are Rust, in lessons/07-at-least-once/src/scenarios/.
//! lessons/07-at-least-once/tests.list lists every test, in order, and the line below writes
//! them; chapter 7 of the book tells each story.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their
//! `[[test]]`, so the solution passes exactly the tests the student runs.

at_least_once::tests!(handler::poll);
