//! The engine: the race made on purpose. A [`script`] of sessions and deliveries, played one
//! step at a time by an [`interleaving`] that sees each wait through the server, the [`barrier`]
//! that releases deliveries together, and [`play`], a scenario's steps with what goes wrong in
//! them said in the words' terms; the [`harness`] runs a lesson's tests as `cargo test` does. The engine uses the servers and the words; neither uses it.

pub(crate) mod barrier;
pub mod commit_points;
pub mod contract;
pub mod harness;
pub(crate) mod interleaving;
pub(crate) mod never_ran;
pub(crate) mod play;
pub(crate) mod script;
pub mod spec;
pub mod statements;
pub(crate) mod subject;
pub mod tester;
