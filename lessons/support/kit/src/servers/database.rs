//! A fresh database per test, cloned from a template that was migrated once per server.
//!
//! Cloning (`CREATE DATABASE … TEMPLATE …`) takes a few tens of milliseconds; running the
//! migrations for every test would take longer and grow with every lesson. Each test owning a
//! whole database is what lets tests run in parallel without seeing each other's rows.

use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use sqlx::migrate::{MigrateError, Migrator};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{AssertSqlSafe, Connection, PgConnection};

use crate::error::KitError;
use crate::servers::backend::{Backend, Server, redact_password, url_of};
use crate::servers::deadline::Deadline;
use crate::servers::keeper::keeper;
use crate::servers::leftovers::{drop_leftovers, test_database_name};
use crate::servers::relay::{Cut, Relay};
use crate::servers::schema::Schema;
use crate::servers::server::server;
use crate::words::statements::Statements;

/// Any constant both this crate and every other test binary agree on: it names the advisory
/// lock that serialises template builds when several test processes share one server.
const TEMPLATE_BUILD_LOCK: i64 = 0x1de9_0be4_7001;

/// See [`TestDatabase::pool`].
const POOL_ACQUIRE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

pub struct TestDatabase {
    name: String,
    server: &'static Server,
    /// Every test makes its database first, and drops it last: so it is the test's clock.
    _deadline: Deadline,
}

impl TestDatabase {
    /// A new, empty database with `schema` applied, for one test.
    pub async fn create(schema: &Schema) -> Result<TestDatabase, KitError> {
        let deadline = Deadline::start();
        let server = server()?;
        let migrator = schema.migrator().await?;
        let template = format!("wb_template_{}", Schema::fingerprint(&migrator));
        if !template_is_ready(&template) {
            let mut admin = connect_admin(server).await?;
            static SWEPT: AtomicBool = AtomicBool::new(false);
            if server.backend == Backend::DatabaseUrl && !SWEPT.swap(true, Ordering::Relaxed) {
                drop_leftovers(&mut admin).await?;
            }
            ensure_template(server, &mut admin, &template, schema, &migrator).await?;
            let _ = admin.close().await;
            ready(template.clone());
        }
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name = test_database_name(NEXT.fetch_add(1, Ordering::Relaxed));
        keeper(server).create(&name, &template).await?;
        Ok(TestDatabase {
            name,
            server,
            _deadline: deadline,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The database's URL, for a client of the reader's own (`psql`): the server's URL with
    /// only its path changed, so a port, a password or a socket directory stays as it is.
    pub fn url(&self) -> String {
        url_of(&self.server.url, &self.name)
    }

    /// A pool for the code under test, with `connections` connections already open, so that
    /// workers released together all start with a connection in hand rather than some of them
    /// first spending milliseconds on a handshake.
    pub async fn pool(&self, connections: u32) -> Result<PgPool, KitError> {
        self.pool_with(connections, self.sqlx_options()?).await
    }

    /// The same, every connection of it (and every one opened from its `connect_options()`,
    /// as a handler's call to another system may) named `application_name` in
    /// `pg_stat_activity`: how a script finds all of one worker's sessions.
    pub async fn pool_named(
        &self,
        connections: u32,
        application_name: &str,
    ) -> Result<PgPool, KitError> {
        let options = self.sqlx_options()?.application_name(application_name);
        self.pool_with(connections, options).await
    }

    /// A relay to this database that will `cut` the first transaction to commit through it
    /// ([`Relay`]), for the worker `application_name`, and a pool named as
    /// [`TestDatabase::pool_named`] names it that reaches the server through the relay.
    pub(crate) async fn pool_cut(
        &self,
        (cut, point): (Cut, Option<usize>),
        connections: u32,
        application_name: &str,
        recording: Option<Arc<Statements>>,
    ) -> Result<(PgPool, Relay), KitError> {
        let options = self.sqlx_options()?.application_name(application_name);
        let recording = recording.map(|statements| (statements, application_name.to_string()));
        let relay = (Relay::start_with(&options, Some((cut, point)), recording).await).map_err(
            |source| KitError::Relay {
                worker: application_name.to_string(),
                source,
            },
        )?;
        let pool = self.pool_with(connections, relay.options(options)).await?;
        Ok((pool, relay))
    }

    /// A pool named as [`TestDatabase::pool_named`] names it, reaching the server through a
    /// relay that records every statement of its connections into `statements`, as
    /// `application_name`'s ([`Statements`]); the relay lives as long as the pool is used.
    pub async fn pool_recorded(
        &self,
        connections: u32,
        application_name: &str,
        statements: &Arc<Statements>,
    ) -> Result<(PgPool, Relay), KitError> {
        let options = self.sqlx_options()?.application_name(application_name);
        let recording = Some((Arc::clone(statements), application_name.to_string()));
        let relay = (Relay::start_with(&options, None, recording).await).map_err(|source| {
            KitError::Relay {
                worker: application_name.to_string(),
                source,
            }
        })?;
        let pool = self.pool_with(connections, relay.options(options)).await?;
        Ok((pool, relay))
    }

    async fn pool_with(
        &self,
        connections: u32,
        options: PgConnectOptions,
    ) -> Result<PgPool, KitError> {
        // No `min_connections`: it makes the pool replace a connection in the background, and
        // the fault scenarios kill connections on purpose. A replacement half-way through a
        // password handshake when the test ends holds up DROP DATABASE (its ProcSignalBarrier
        // waits on every backend) until the server's authentication_timeout: the handshake's
        // task runs on the test's runtime, which the drop below blocks. The loop below opens
        // every connection up front instead.
        let pool = PgPoolOptions::new()
            .max_connections(connections)
            // Every scenario gives each worker a connection of its own, so waiting for one only
            // happens when a handler holding a transaction asks the pool for a second
            // connection. That never resolves; say so in seconds, not after sqlx's default 30.
            .acquire_timeout(POOL_ACQUIRE_TIMEOUT)
            .connect_with(options)
            .await
            .map_err(KitError::database("connect a pool for the code under test"))?;
        let mut open = Vec::new();
        for _ in 0..connections {
            match pool.acquire().await {
                Ok(connection) => open.push(connection),
                Err(error) => return Err(self.why_no_connection(error, connections).await),
            }
        }
        drop(open);
        Ok(pool)
    }

    /// sqlx retries a refused connection until its timeout, then says only "pool timed out".
    /// One more connection, made directly, tells why the server refuses them (53300: no slots
    /// left, say).
    async fn why_no_connection(&self, error: sqlx::Error, connections: u32) -> KitError {
        if !matches!(error, sqlx::Error::PoolTimedOut) {
            return KitError::Database {
                doing: "open the pool's connections",
                source: error,
            };
        }
        let refused = match self.sqlx_options() {
            Ok(options) => PgConnection::connect_with(&options).await.err(),
            Err(error) => return error,
        };
        match refused {
            Some(source) => KitError::Database {
                doing: "open the pool's connections (the server refused a new connection)",
                source,
            },
            None => KitError::Database {
                doing: if connections > 1 {
                    "open the pool's connections (each worker gets one, and one could not be had)"
                } else {
                    "open the pool's connection"
                },
                source: error,
            },
        }
    }

    /// A session for the test itself (setup, scripted transactions, observation), on a client
    /// independent of the code under test.
    pub async fn session(&self) -> Result<tokio_postgres::Client, KitError> {
        let mut config = tokio_postgres::Config::from_str(&self.server.url)
            .map_err(KitError::observer("parse the server URL"))?;
        config.dbname(&self.name);
        let (client, connection) = config
            .connect(tokio_postgres::NoTls)
            .await
            .map_err(KitError::observer("connect to the test database"))?;
        // The connection does the I/O; it ends when the client is dropped or the server
        // terminates the session (which the fault-injection scenarios do on purpose).
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(client)
    }

    /// A session for the test itself whose notices and notifications are kept, in the order
    /// they arrive, as a client that prints them (PostgreSQL's isolation tester) hears them.
    pub async fn session_heard(
        &self,
    ) -> Result<
        (
            tokio_postgres::Client,
            tokio::sync::mpsc::UnboundedReceiver<tokio_postgres::AsyncMessage>,
        ),
        KitError,
    > {
        let mut config = tokio_postgres::Config::from_str(&self.server.url)
            .map_err(KitError::observer("parse the server URL"))?;
        config.dbname(&self.name);
        let (client, mut connection) = config
            .connect(tokio_postgres::NoTls)
            .await
            .map_err(KitError::observer("connect to the test database"))?;
        let (heard, hearing) = tokio::sync::mpsc::unbounded_channel();
        // The connection does the I/O, and hands on what the server says unasked.
        tokio::spawn(async move {
            while let Some(Ok(message)) =
                std::future::poll_fn(|cx| connection.poll_message(cx)).await
            {
                let _ = heard.send(message);
            }
        });
        Ok((client, hearing))
    }

    fn sqlx_options(&self) -> Result<PgConnectOptions, KitError> {
        Ok(PgConnectOptions::from_str(&self.server.url)
            .map_err(KitError::database("parse the server URL"))?
            .database(&self.name))
    }
}

/// Dropped after every test, on every kind of server: on a `DATABASE_URL` server they would pile
/// up for good, and a throwaway cluster lives in memory (/dev/shm) for as long as its process,
/// which for `cargo repeat` means thousands of tests.
impl Drop for TestDatabase {
    fn drop(&mut self) {
        // Drop cannot await; the keeper's thread does the work, and this one waits for it.
        let _ = keeper(self.server).drop_database(&self.name);
    }
}

/// The templates this process has seen ready: built once per server and schema, and never
/// dropped while a test process may clone them, so there is no need to look again.
fn template_is_ready(template: &str) -> bool {
    READY
        .lock()
        .expect("not poisoned")
        .iter()
        .any(|t| t == template)
}

fn ready(template: String) {
    READY.lock().expect("not poisoned").push(template);
}

static READY: Mutex<Vec<String>> = Mutex::new(Vec::new());

async fn connect_admin(server: &Server) -> Result<PgConnection, KitError> {
    let options = PgConnectOptions::from_str(&server.url)
        .map_err(KitError::database("parse the server URL"))?;
    PgConnection::connect_with(&options).await.map_err(|source| {
        if server.backend == Backend::DatabaseUrl {
            KitError::provision(
                format!("DATABASE_URL ({})", redact_password(&server.url)),
                format!(
                    "{source}. Is the server running and the URL right? Unset DATABASE_URL to let \
                     the kit start a server of its own"
                ),
            )
        } else {
            KitError::Database {
                doing: "connect to the server",
                source,
            }
        }
    })
}

/// Builds the template once per server and schema. Several test processes may share a server
/// (a `DATABASE_URL`, or an instructor running two lessons at once), so the build happens under
/// an advisory lock, and a template is only marked as one once it is complete.
async fn ensure_template(
    server: &Server,
    admin: &mut PgConnection,
    template: &str,
    schema: &Schema,
    migrator: &Migrator,
) -> Result<(), KitError> {
    if is_template(admin, template).await? {
        return Ok(());
    }
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(TEMPLATE_BUILD_LOCK)
        .execute(&mut *admin)
        .await
        .map_err(KitError::database("take the template-build lock"))?;
    // Released when `admin` closes, also on the error paths below.
    if is_template(admin, template).await? {
        return Ok(());
    }
    // A leftover of a build that was interrupted, or whose migrations failed.
    for statement in [
        format!(r#"DROP DATABASE IF EXISTS "{template}" WITH (FORCE)"#),
        format!(r#"CREATE DATABASE "{template}""#),
    ] {
        sqlx::query(AssertSqlSafe(statement))
            .execute(&mut *admin)
            .await
            .map_err(KitError::database("create the template database"))?;
    }
    let options = PgConnectOptions::from_str(&server.url)
        .map_err(KitError::database("parse the server URL"))?
        .database(template);
    let mut conn = PgConnection::connect_with(&options)
        .await
        .map_err(KitError::database("connect to the template database"))?;
    migrator.run(&mut conn).await.map_err(|error| match error {
        MigrateError::ExecuteMigration(error, version) => KitError::MigrationFailed {
            file: schema.file_of(version),
            // The server's own words; sqlx's rendering adds a position that counts from
            // the start of its migration batch, not of the student's file.
            error: error
                .as_database_error()
                .map_or_else(|| error.to_string(), |e| e.message().to_string()),
        },
        other => KitError::MigrationFailed {
            file: "one of the lesson's migrations".into(),
            error: other.to_string(),
        },
    })?;
    let _ = conn.close().await;
    // No connections allowed: `CREATE DATABASE … TEMPLATE` fails while anyone is connected.
    sqlx::query(AssertSqlSafe(format!(
        r#"ALTER DATABASE "{template}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"#
    )))
    .execute(&mut *admin)
    .await
    .map_err(KitError::database("mark the template database"))?;
    Ok(())
}

async fn is_template(admin: &mut PgConnection, name: &str) -> Result<bool, KitError> {
    let found: Option<bool> =
        sqlx::query_scalar("SELECT datistemplate FROM pg_database WHERE datname = $1")
            .bind(name)
            .fetch_optional(admin)
            .await
            .map_err(KitError::database("look for the template database"))?;
    Ok(found == Some(true))
}
