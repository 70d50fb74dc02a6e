//! The words: what a failure message says, once for every lesson. The violation and how a lesson
//! explains it ([`teaching`]), the violations every lesson shares ([`common`]), what a SQLSTATE
//! means ([`sqlstate`]) and the causes it points to ([`failure`]), the faults a script injects,
//! and the trace a message prints, the statements a scenario ran ([`statements`]), and a failing
//! test's violation as data for tools ([`reported`]). Plain data and wording: nothing here runs
//! a scenario.

pub(crate) mod common;
pub(crate) mod delivery;
pub(crate) mod errors;
pub(crate) mod failure;
pub(crate) mod fault;
pub(crate) mod reported;
pub(crate) mod sqlstate;
pub(crate) mod statements;
pub(crate) mod teaching;
pub(crate) mod trace;
