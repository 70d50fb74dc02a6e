//! Lesson 03's tests, run against `apply_payment_result` in this crate's `src/lib.rs`.
//!
//! From a test to the rule it checks: the spec that scripts its race
//! (lessons/order-saga/specs/, where each permutation's `test` line names its test); the one
//! function that plays every spec of lessons 02 to 05 and hands what happened to the rule
//! (`play`, in lessons/order-saga/src/lesson.rs, which is the saga as the kit knows it); and the
//! rule itself, lessons/order-saga/src/judge.rs. What a broken rule says is worded in
//! lessons/order-saga/src/violation.rs. The few scenarios data cannot say yet are Rust, in
//! lessons/order-saga/src/scenarios/. Lessons 02 to 05 share them, and each picks its own tests
//! (lessons/order-saga/src/picks.rs). The line below runs every test of lesson 03; chapter 3
//! of the book tells each story.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their
//! `[[test]]`, so the solution passes exactly the tests the student runs.

fn main() -> std::process::ExitCode {
    order_saga::subject!(handler::apply_payment_result).tested_by::<order_saga::Lesson<3>>()
}
