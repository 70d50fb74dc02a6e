//! The workbook's test kit: a real PostgreSQL for every test, and the tools to make a race
//! happen on purpose instead of by luck.
//!
//! - [`server`] finds a server once per test process (`DATABASE_URL`, a Docker engine, or the
//!   PostgreSQL binaries installed on this machine) and says which one it picked.
//! - [`broker()`] does the same for the Kafka track's broker (`KAFKA_BOOTSTRAP_SERVERS`, or a
//!   throwaway broker started on loopback).
//! - [`TestDatabase`] hands each test its own database, cloned from a template that was migrated
//!   once, so tests run in parallel and never see each other's rows.
//! - [`Interleaving`] scripts concurrent sessions the way PostgreSQL's isolation tester does: a
//!   step only starts once the previous one has finished or is *seen* waiting on a lock, and every
//!   step is written to a [`Trace`] a student can read line by line.
//! - [`release_together`] is the essay's barrier: N tasks, one starting gun.
//! - [`dev_database`] keeps a server for poking at a lesson by hand, and [`deliver`] feeds it
//!   events as JSON lines, through a lesson's handler.
//! - [`envelope`] is the JSON envelope the saga's events travel in, and the checks every lesson
//!   makes of it (ids present and short, envelope and payload about the same order).
//! - [`Subject`] pairs the handler under test with the schema it was written for.
//!
//! Nothing here knows about any lesson; lessons build their scenarios from these parts.
//!
//! The source is four rooms, each a folder: `servers` (the first four items above, and the
//! development database), `engine` (interleavings, scripts, the barrier, playing a scenario),
//! `words` (what a failure message says: violations, SQLSTATEs, causes, faults, traces, and the
//! statement record) and `by_hand` (`deliver`, the envelope), with `error.rs` beside them. They
//! stand on three floors, lowest first: `words` and `error`; `servers`; `engine` and `by_hand`.
//! A room uses its own floor and the floors below, never one above (`tests/kit/floors.rs` holds
//! the source to it). This file only re-exports what lessons use.

mod by_hand;
mod engine;
mod error;
mod servers;
mod words;

pub use by_hand::{deliver, envelope};
pub use engine::barrier::{checking, in_the_checks, release_together};
pub use engine::contract::{self, Lesson};
pub use engine::harness;
pub use engine::interleaving::{AfterKill, Interleaving, Rows, Session, StepResult, Worker};
pub use engine::never_ran::steps_that_never_ran;
pub use engine::play::{play, prepare};
pub use engine::script::{NoDelivery, Outcomes, Ran, Script};
pub use engine::spec;
pub use engine::statements::recorded;
pub use engine::subject::{Handler, Subject};
pub use engine::tester;
pub use error::KitError;
pub use servers::backend::{Backend, Server};
pub use servers::broker::{Broker, broker};
pub use servers::database::TestDatabase;
pub use servers::deadline::{DEADLINE_VAR, DID_NOT_FINISH};
pub use servers::leftovers::{drop_leftovers, machine_tag, process_is_gone};
pub use servers::relay::{Cut, Relay};
pub use servers::schema::Schema;
pub use servers::server::{durable_local_server, server};
pub use servers::{broker, dev_broker, dev_database};
pub use words::common::{Calls, Common, Speaks, Topic, Words};
pub use words::delivery::{Delivery, Round, Rounds, rounds, with_one_round};
pub use words::errors::Errors;
pub use words::failure::FailureCause;
pub use words::fault::Fault;
pub use words::sqlstate::{
    DbError, code_of, describe_outcome, describe_postgres, describe_sqlx, is_unique_violation,
    meaning,
};
pub use words::statements::{Answer, Statement, Statements, Transaction};
pub use words::teaching::{Explain, Violation, left_behind, reported, see};
pub use words::trace::{Trace, TraceStep, passing_trace, passing_traces};

/// The longest event id any lesson accepts. Ids are keys people read in logs and type into
/// psql; one longer than this is almost certainly a payload pasted into the wrong field.
pub const MAX_ID_BYTES: usize = 200;

#[doc(hidden)]
pub mod __private {
    pub use sqlx::Error as SqlxError;
    pub use sqlx::PgPool;
}
