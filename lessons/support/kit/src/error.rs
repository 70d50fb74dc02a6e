use std::time::Duration;

/// Everything that can go wrong in the kit, worded for the person running the tests: each
/// message says what happened and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum KitError {
    #[error(
        "no PostgreSQL server is available for the tests.\n{tried}\nGet one in any of three ways:\n  \
         1. point DATABASE_URL at a server you run (PostgreSQL 13 or newer), e.g.\n     \
         DATABASE_URL=postgres://postgres:postgres@localhost:5432/postgres cargo test\n  \
         2. start a Docker engine (Docker Desktop, Colima or Podman: set DOCKER_HOST for the last two)\n  \
         3. install the PostgreSQL server binaries (Debian/Ubuntu: apt-get install postgresql; \
         macOS: brew install postgresql@16)"
    )]
    NoServer { tried: String },

    /// The server search already failed earlier in this process; this is its message again.
    #[error("{0}")]
    Unavailable(String),

    #[error("could not get a PostgreSQL server from {what}: {detail}")]
    Provision { what: String, detail: String },

    /// A spec of sessions could not be played to its end, as PostgreSQL's isolation tester
    /// would not play it either: a setup failed, a step ran past its time, steps block each
    /// other.
    #[error("{0}")]
    Play(String),

    #[error(
        "no Kafka-protocol broker is available for the Kafka track.\n- {bootstrap_var} is not \
         set\n- the pinned broker (Tansu {version}) is not installed\nGet one in either of two \
         ways:\n  \
         1. point {bootstrap_var} at a Kafka cluster you run (Apache Kafka, Redpanda, a managed \
         service), e.g.\n     \
         {bootstrap_var}=localhost:9092 cargo workbook check 07 --kafka\n  \
         2. install the pinned broker (a build of tens of minutes), where the kit looks for it:\n     \
         {install}"
    )]
    /// Built by `servers::broker::no_broker`, which knows the variable, the version and the
    /// install command.
    NoBroker {
        bootstrap_var: &'static str,
        version: &'static str,
        install: String,
    },

    #[error("could not start a Kafka-protocol broker from {what}: {detail}")]
    Broker { what: String, detail: String },

    /// The test's own Kafka client failed (lessons/support/kit/kafka).
    #[error("the test's Kafka client could not {doing}: {detail}")]
    KafkaClient { doing: String, detail: String },

    #[error("the kit could not {doing}: {}", crate::words::sqlstate::describe_sqlx(.source))]
    Database {
        doing: &'static str,
        #[source]
        source: sqlx::Error,
    },

    #[error(
        "the test's own session failed while {doing}: {}",
        crate::words::sqlstate::describe_postgres(.source)
    )]
    Observer {
        doing: String,
        #[source]
        source: tokio_postgres::Error,
    },

    #[error("could not read the migrations in {dir}: {source}")]
    Migrate {
        dir: String,
        #[source]
        source: sqlx::migrate::MigrateError,
    },

    #[error("the migration {file} does not apply: {error}\nFix the SQL and try again.")]
    MigrationFailed { file: String, error: String },

    #[error(
        "{session} neither finished nor waited on a lock within {waited:?}. The script expected it \
         to do one or the other; it may be waiting on something the database cannot see: a lock \
         in the process (a Mutex), a pool with no free connection, a sleep, a channel."
    )]
    Stuck { session: String, waited: Duration },

    #[error(
        "{session}'s step `{sql}` waits on a lock that {} holds. A scripted session's SQL runs \
         to its end before the next step starts, so it must not wait (a delivery may): order the \
         steps so that the lock is free by then, or deliver instead.",
        on.join(", ")
    )]
    ScriptedStepWaits {
        session: String,
        sql: String,
        on: Vec<String>,
    },

    #[error(
        "the permutation ended while {worker} waited on a lock that {} holds, and no later step \
         lets it go: add a step that ends that transaction (a COMMIT or ROLLBACK) after \
         {worker}'s delivery.",
        on.join(", ")
    )]
    ScheduleEnds { worker: String, on: Vec<String> },

    #[error("the script tried to kill {session}, which was not waiting on a lock: it had finished")]
    NotWaiting { session: String },

    /// The loopback relay that cuts a worker's connection at its COMMIT could not start.
    #[error("could not start the relay that cuts {worker}'s connection at its COMMIT: {source}")]
    Relay {
        worker: String,
        source: std::io::Error,
    },

    /// A delivery returned, and its session (which the pool keeps for the next delivery) still
    /// holds something of it: `left` says what.
    #[error(
        "{session}'s delivery had returned, but its session still {left}. The pool hands that \
         session to a later delivery, and every other session that wants the same lock waits \
         on it{waiting}."
    )]
    LeftBehind {
        session: String,
        left: String,
        /// ", as NAME does here", when a later delivery is already waiting on it.
        waiting: String,
    },
}

impl KitError {
    /// Wraps an error of a connection the test opened through sqlx (a pool it then hands the
    /// code under test, say) with what the test was doing.
    pub fn database(doing: &'static str) -> impl FnOnce(sqlx::Error) -> KitError {
        move |source| KitError::Database { doing, source }
    }

    /// Wraps an error of a test's own session (tokio-postgres) with what the test was doing.
    pub fn observer(doing: impl Into<String>) -> impl FnOnce(tokio_postgres::Error) -> KitError {
        let doing = doing.into();
        move |source| KitError::Observer { doing, source }
    }

    pub(crate) fn broker(what: &str, detail: impl ToString) -> KitError {
        KitError::Broker {
            what: what.to_string(),
            detail: detail.to_string(),
        }
    }

    pub(crate) fn provision(what: impl Into<String>, detail: impl ToString) -> KitError {
        KitError::Provision {
            what: what.into(),
            detail: detail.to_string(),
        }
    }
}
