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

mod barrier;
pub mod broker;
mod common;
mod database;
mod deadline;
pub mod deliver;
mod delivery;
pub mod dev_broker;
pub mod dev_database;
mod docker;
pub mod envelope;
mod error;
mod failure;
mod interleaving;
mod keeper;
mod leftovers;
mod local_cluster;
mod schema;
mod script;
mod server;
mod sqlstate;
mod subject;
mod teaching;
mod trace;

pub use barrier::{checking, in_the_checks, release_together, rounds, with_one_round};
pub use broker::{Broker, broker};
pub use common::{Common, Speaks, Topic, Words};
pub use database::TestDatabase;
pub use deadline::{DEADLINE_VAR, DID_NOT_FINISH};
pub use delivery::Delivery;
pub use error::KitError;
pub use failure::FailureCause;
pub use interleaving::{AfterKill, Interleaving, Rows, Session, StepResult, Worker};
pub use leftovers::{drop_leftovers, machine_tag, process_is_gone};
pub use schema::Schema;
pub use script::{Fault, NoDelivery, Outcomes, Ran, Script};
pub use server::{Backend, Server, durable_local_server, server};
pub use sqlstate::{
    DbError, code_of, describe_outcome, describe_postgres, describe_sqlx, is_unique_violation,
    meaning,
};
/// The longest event id any lesson accepts. Ids are keys people read in logs and type into
/// psql; one longer than this is almost certainly a payload pasted into the wrong field.
pub const MAX_ID_BYTES: usize = 200;

#[doc(hidden)]
pub mod __private {
    pub use sqlx::PgPool;
}

pub use subject::{Handler, Subject};
pub use teaching::{Explain, Violation, left_behind, play, prepare, see};
pub use trace::{Trace, passing_trace, passing_traces};
