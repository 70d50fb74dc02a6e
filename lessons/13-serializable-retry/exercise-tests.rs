//! Lesson 13's tests, run against `authorize` in this crate's `src/lib.rs`.
//!
//! From a test to the rule it checks, three files. The spec that scripts the race:
//! lessons/13-serializable-retry/specs/, where each permutation's `test` line names its test
//! (the scenarios data cannot say yet, the injected conflicts among them, are Rust, in
//! lessons/13-serializable-retry/src/scenarios/). The rule every test checks:
//! lessons/13-serializable-retry/src/judge.rs (the shared limit holds, each authorization is
//! decided once, a transaction the database aborted for a conflict is run again, a bounded number
//! of times, and no other error is, and the attempts reported are the attempts the database saw).
//! And the words a broken rule is told in: lessons/13-serializable-retry/src/violation.rs.
//! Chapter 13 of the book tells each story; lessons/13-serializable-retry/tests.list lists the
//! tests, in order, and the line below writes them.
//!
//! One file for both crates: `exercises/NN-…` and `solutions/NN-…` name it as their `[[test]]`, so
//! the solution passes exactly the tests the student runs.

serializable_retry::tests!(handler::authorize);
