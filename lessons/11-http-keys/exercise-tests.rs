//! Lesson 11's tests, run against `create_payment` in this crate's `src/lib.rs` and the table in
//! its `migrations/`, behind a real HTTP API, called with a real HTTP client.
//!
//! From a test to the rule it checks: the spec that scripts its race or its crash
//! (lessons/11-http-keys/specs/, where each permutation's `test` line names its test); the one
//! function that plays every spec of the lesson and hands what came back to the rule (`play`, in
//! lessons/11-http-keys/src/lesson.rs, which is the lesson as the kit knows it); and the rule
//! itself, lessons/11-http-keys/src/judge.rs: one payment per key of a client, whatever arrives;
//! every retry of the request that made it gets its response back, byte for byte and marked as a
//! replay (or a 409 with Retry-After); every other request under the key, a 422. What a broken rule
//! says is worded in lessons/11-http-keys/src/violation.rs. The scenarios data cannot say yet (one
//! request after another, two clients, the key's window) are Rust, in
//! lessons/11-http-keys/src/scenarios/. The line below runs every test; chapter 11 of the book
//! tells each story.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their
//! `[[test]]`, so the solution passes exactly the tests the student runs.

fn main() -> std::process::ExitCode {
    // The specs send HTTP requests: the tests play the API in front of the handler.
    http_keys::api(http_keys::subject!(handler::create_payment)).tested_by::<http_keys::Lesson>()
}
