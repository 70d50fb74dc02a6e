//! Servers: where the tests' PostgreSQL comes from (a `DATABASE_URL`, a Docker engine, the local
//! binaries), the throwaway database each test gets on it, and what a test process leaves behind
//! when it dies; the development database and broker for working by hand; the Kafka track's
//! broker; the relay that loses a worker's COMMIT or its answer, pauses a worker after one, or
//! reads its statements into the words' record (`recording`). Nothing here knows about
//! scenarios; what the servers use of the words is plain data and wording.

pub(crate) mod backend;
pub mod broker;
pub(crate) mod database;
pub(crate) mod deadline;
pub mod dev_broker;
pub mod dev_database;
pub(crate) mod docker;
pub(crate) mod keeper;
pub(crate) mod leftovers;
pub(crate) mod local_cluster;
pub(crate) mod recording;
pub(crate) mod relay;
pub(crate) mod schema;
pub(crate) mod server;
pub(crate) mod wire;
