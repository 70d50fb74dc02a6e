//! The process's keeper of test databases: one thread, one runtime and two administrative
//! connections for the whole test process, which create and drop every test's database.
//!
//! Every scenario creates a database and drops it. Opening an administrative connection for each
//! (two a scenario) was a quarter of all the connections a suite opened, and a connection costs
//! the server a process of its own, started and ended. A test's own runtime cannot keep one for
//! the next test (each `#[tokio::test]` has a runtime of its own, and a connection breaks with
//! its runtime), so the keeper's connections live on a runtime of its own, on a thread that
//! lives as long as the process.
//!
//! Working in the keeper also makes creating a database safe to abandon. A test that stops
//! waiting (the maintainers' quick checks drop the scenarios still running once one has failed)
//! would otherwise leave a `CREATE DATABASE` finishing on the server with no test to drop what
//! it made; the keeper finishes it, sees that nobody wants it any more, and drops it.

use std::str::FromStr;
use std::sync::OnceLock;
use std::sync::mpsc as blocking;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{AssertSqlSafe, Executor};
use tokio::sync::{mpsc, oneshot};

use crate::error::KitError;
use crate::servers::backend::{Backend, Server};

/// How many times [`end_sessions`] looks, a millisecond apart, for the test's sessions to exit.
const SESSION_EXIT_CHECKS: u32 = 2000;

/// Two: a create and a drop at once, which is as many as two cores keep busy.
const CONNECTIONS: u32 = 2;

enum Job {
    Create {
        name: String,
        template: String,
        done: oneshot::Sender<Result<(), KitError>>,
    },
    Drop {
        name: String,
        done: blocking::Sender<Result<(), KitError>>,
    },
}

/// A handle on the keeper of this process's server.
pub(crate) struct Keeper {
    jobs: mpsc::UnboundedSender<Job>,
}

/// The keeper, started on first use.
pub(crate) fn keeper(server: &'static Server) -> &'static Keeper {
    static KEEPER: OnceLock<Keeper> = OnceLock::new();
    KEEPER.get_or_init(|| {
        let (jobs, queue) = mpsc::unbounded_channel();
        std::thread::Builder::new()
            .name("workbook-keeper".into())
            .spawn(move || keep(server, queue))
            .expect("a thread for the keeper of test databases");
        Keeper { jobs }
    })
}

impl Keeper {
    /// Creates `name` from `template`. Dropping this future before it ends drops the database
    /// once it exists.
    pub(crate) async fn create(&self, name: &str, template: &str) -> Result<(), KitError> {
        let (done, answer) = oneshot::channel();
        let job = Job::Create {
            name: name.to_string(),
            template: template.to_string(),
            done,
        };
        self.jobs.send(job).map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }

    /// Ends the sessions on `name` and drops it, blocking this thread until it is gone: the
    /// caller is a `Drop`, which cannot await, and a test process that ended before its
    /// databases were dropped would leave them on a `DATABASE_URL` server.
    pub(crate) fn drop_database(&self, name: &str) -> Result<(), KitError> {
        let (done, answer) = blocking::channel();
        let name = name.to_string();
        self.jobs
            .send(Job::Drop { name, done })
            .map_err(|_| gone())?;
        answer.recv().map_err(|_| gone())?
    }
}

fn gone() -> KitError {
    KitError::Unavailable("the kit's keeper of test databases has stopped".into())
}

/// The keeper's thread: jobs are run as they come, each in a task of its own, on the keeper's
/// connections.
fn keep(server: &'static Server, mut queue: mpsc::UnboundedReceiver<Job>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime for the keeper of test databases");
    runtime.block_on(async {
        let admin = Admin::new(server);
        while let Some(job) = queue.recv().await {
            let admin = admin.clone();
            tokio::spawn(async move {
                match job {
                    Job::Create {
                        name,
                        template,
                        done,
                    } => {
                        let created = admin.create(&name, &template).await;
                        // Nobody waits for it any more: it is nobody's, so it goes.
                        if let Err(Ok(())) = done.send(created) {
                            let _ = admin.drop_database(&name).await;
                        }
                    }
                    Job::Drop { name, done } => {
                        let _ = done.send(admin.drop_database(&name).await);
                    }
                }
            });
        }
    });
}

/// The keeper's connections, opened when first needed (and again after a failure).
#[derive(Clone)]
struct Admin {
    server: &'static Server,
    pool: std::sync::Arc<tokio::sync::OnceCell<PgPool>>,
}

impl Admin {
    fn new(server: &'static Server) -> Admin {
        Admin {
            server,
            pool: Default::default(),
        }
    }

    async fn pool(&self) -> Result<&PgPool, KitError> {
        self.pool
            .get_or_try_init(|| async {
                let options = PgConnectOptions::from_str(&self.server.url)
                    .map_err(KitError::database("parse the server URL"))?;
                PgPoolOptions::new()
                    .max_connections(CONNECTIONS)
                    .connect_with(options)
                    .await
                    .map_err(KitError::database("connect to the server"))
            })
            .await
    }

    async fn create(&self, name: &str, template: &str) -> Result<(), KitError> {
        // The kit's own cluster runs without fsync, so a plain copy of the template's files
        // (and the checkpoints around it) costs half of what PostgreSQL 15's default does, which
        // writes every page of the template to the WAL. Elsewhere the default stays: a server
        // that syncs its disk pays dearly for a checkpoint.
        let strategy = match self.server.backend {
            Backend::LocalBinaries => " STRATEGY FILE_COPY",
            Backend::DatabaseUrl | Backend::Docker => "",
        };
        // Identifiers cannot be bound as parameters. Both names are built from hex digits and
        // numbers only, which is what makes this dynamic SQL safe to assert.
        self.pool()
            .await?
            .execute(AssertSqlSafe(format!(
                r#"CREATE DATABASE "{name}" TEMPLATE "{template}"{strategy}"#
            )))
            .await
            .map_err(KitError::database("create the test's database"))?;
        Ok(())
    }

    async fn drop_database(&self, name: &str) -> Result<(), KitError> {
        let pool = self.pool().await?;
        end_sessions(pool, name).await?;
        // FORCE ends any session that connected since (pools are closed lazily).
        pool.execute(AssertSqlSafe(format!(
            r#"DROP DATABASE IF EXISTS "{name}" WITH (FORCE)"#
        )))
        .await
        .map_err(KitError::database("drop the test's database"))?;
        Ok(())
    }
}

/// Ends the sessions the test left open on `name` (its pools close lazily), and returns once
/// none is left.
///
/// `DROP DATABASE … WITH (FORCE)` ends them too, but it looks again only every 100 ms to see
/// whether they have gone, and so does `pg_terminate_backend(pid, timeout)`. The sessions take
/// well under a millisecond to exit, so that was a tenth of a second of every test spent asleep.
/// A backend leaves `pg_stat_activity` a moment before the server stops counting it; should the
/// DROP that follows look in that moment, it takes its 100 ms, as before.
async fn end_sessions(pool: &PgPool, name: &str) -> Result<(), KitError> {
    sqlx::query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = $1 AND pid <> pg_backend_pid()",
    )
    .bind(name)
    .execute(pool)
    .await
    .map_err(KitError::database("end the test's sessions"))?;
    // Bounded: a session the server cannot end is left to the DROP, which reports it.
    for _ in 0..SESSION_EXIT_CHECKS {
        let left: i64 =
            sqlx::query_scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = $1")
                .bind(name)
                .fetch_one(pool)
                .await
                .map_err(KitError::database("count the test's sessions"))?;
        if left == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    Ok(())
}
