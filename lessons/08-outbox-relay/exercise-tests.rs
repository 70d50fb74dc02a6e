//! Lesson 08's tests, run against `relay` and `consume` (through `run`) in this crate's
//! `src/lib.rs`.
//!
//! From a test to the rule it checks: the spec that scripts its race or its crash
//! (lessons/08-outbox-relay/specs/, where each permutation's `test` line names its test); the one
//! function that plays every spec of the lesson and hands what happened to the rule (`play`, in
//! lessons/08-outbox-relay/src/lesson.rs, which is the lesson as the kit knows it); and the rule
//! itself, lessons/08-outbox-relay/src/judge.rs: every announcement the producer committed reached
//! the broker at least once, and the warehouse shipped it exactly once. What a broken rule says is
//! worded in lessons/08-outbox-relay/src/violation.rs. The scenarios data cannot say yet (the
//! broker's refusal, the restored producer, the barrier among them) are Rust, in
//! lessons/08-outbox-relay/src/scenarios/. The line below runs every test; chapter 8 of the book
//! tells each story.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their
//! `[[test]]`, so the solution passes exactly the tests the student runs.

fn main() -> std::process::ExitCode {
    outbox_relay::subject!(handler::run).tested_by::<outbox_relay::Lesson>()
}
