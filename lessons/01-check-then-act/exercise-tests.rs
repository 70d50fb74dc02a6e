//! Lesson 01's tests, run against `apply_credit` in this crate's `src/lib.rs`.
//!
//! From a test to the rule it checks, three files. The spec that scripts the race:
//! lessons/01-check-then-act/specs/, where each permutation's `test` line names its test (the
//! few scenarios data cannot say yet are Rust, in lessons/01-check-then-act/src/scenarios/).
//! The rule every test checks: lessons/01-check-then-act/src/judge.rs. And the words a broken
//! rule is told in: lessons/01-check-then-act/src/violation.rs. Chapter 1 of the book tells each
//! story; lessons/01-check-then-act/tests.list lists the tests, in order, and the line below
//! writes them.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.

check_then_act::tests!(handler::apply_credit);
