//! Lesson 03's tests, run against `apply_payment_result` in this crate's `src/lib.rs`.
//!
//! From a test to the rule it checks: the spec that scripts its race
//! (lessons/order-saga/specs/, where each permutation's `test` line names its test); the one
//! function that plays every spec of lessons 02 to 05 and hands what happened to the rule
//! (`play`, in lessons/order-saga/src/scenarios/specs.rs); and the rule itself,
//! lessons/order-saga/src/judge.rs. What a broken rule says is worded in
//! lessons/order-saga/src/violation.rs. The few scenarios data cannot say yet are Rust, in
//! lessons/order-saga/src/scenarios/.
//!
//! lessons/03-one-transaction/tests.list lists every test, in order, and the line below writes
//! them; chapter 3 of the book tells each story.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their
//! `[[test]]`, so the solution passes exactly the tests the student runs.

order_saga::tests!(lesson_03, handler::apply_payment_result);
