//! The kit's promises, checked for real: a server found or started, a database per test,
//! barriers, a deadline for a test that never ends, and nothing left behind by a test process
//! that dies; and the reader of a lesson's `tests.list`, which the build scripts share. One test
//! binary, not six: each links the whole database stack.

mod abandon;
mod barrier;
mod cleanup;
mod cut;
mod database;
mod deadline;
mod dev_database;
mod session_step;
mod tests_list;
