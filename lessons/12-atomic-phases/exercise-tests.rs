//! Lesson 12's tests, run against `create_payment` and `complete` in this crate's `src/lib.rs`
//! and the table in its `migrations/`, behind lesson 11's HTTP API, in front of a card provider
//! that is a second HTTP API.
//!
//! From a test to the rule it checks: the spec that scripts its race or its crash
//! (lessons/12-atomic-phases/specs/, where each permutation's `test` line names its test); the one
//! function that plays every spec of the lesson and hands what came back to the rule (`play`, in
//! lessons/12-atomic-phases/src/lesson.rs, which is the lesson as the kit knows it); and the rule
//! itself, lessons/12-atomic-phases/src/judge.rs: one charge at the provider for one request, one
//! record of it in our books, and the client's last answer that payment. What a broken rule says is
//! worded in lessons/12-atomic-phases/src/violation.rs. The scenarios data cannot say yet (the
//! provider that hangs up, the slow provider and its two clients, the provider's key, the barrier)
//! are Rust, in lessons/12-atomic-phases/src/scenarios.rs and scenarios/. The line below runs every
//! test; chapter 12 of the book tells each story.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`,
//! so the solution passes exactly the tests the student runs.

fn main() -> std::process::ExitCode {
    // The specs send HTTP requests and run the completer: the tests play the API in front of
    // this crate's handlers.
    atomic_phases::api(atomic_phases::subject!(handler)).tested_by::<atomic_phases::Lesson>()
}
