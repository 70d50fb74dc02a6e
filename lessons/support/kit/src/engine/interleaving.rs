//! Forcing an interleaving instead of hoping for one.
//!
//! This is the method of PostgreSQL's isolation tester: every session of the scenario is known
//! by its backend pid (and a connection a worker opens of its own, as a relay does to publish,
//! by the `application_name` its pool gives it); a step starts only once the previous one has finished or is *seen*
//! waiting on a lock held by another session of the scenario; and nothing ever sleeps to "give
//! the other side time". A scenario written this way has one outcome, every run.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::PgPool;
use tokio::task::JoinHandle;

use crate::engine::statements;
use crate::error::KitError;
use crate::servers::database::TestDatabase;
use crate::servers::relay::{Cut, Relay};
use crate::words::statements::{Answer, Statements};
use crate::words::trace::Trace;

mod pause;
mod session_step;
pub use session_step::{Rows, StepResult};

/// How long a step may take to finish or to start waiting. Far longer than any step needs (a
/// few milliseconds); it only bounds how long a broken script takes to say so.
pub(crate) const STEP_DEADLINE: Duration = Duration::from_secs(20);

/// How often the observer looks. Cheap: one catalog query on an idle connection.
const POLL_EVERY: Duration = Duration::from_millis(1);

/// While a step runs without waiting on a lock, the observer looks less and less often, up to
/// this: a step that runs for seconds (one that waits for a pool's timeout, say) would otherwise
/// cost thousands of queries. A step that waits on a lock waits until the script moves on,
/// which it does only once it has seen the wait, so looking less often misses nothing; and a
/// step that finishes is noticed at once, by its task, not by a look.
const POLL_AT_MOST_EVERY: Duration = Duration::from_millis(16);

/// A scripted scenario: its sessions, the observer that watches them, and the trace.
pub struct Interleaving {
    observer: tokio_postgres::Client,
    /// Backend pid → session name, for every session of this scenario (and no other).
    names: Vec<(i32, String)>,
    trace: Trace,
    /// Each worker whose connection a relay may cut at its COMMIT, and whether the trace has
    /// said that it did. A relay lives as long as the scenario: its worker's pool reaches the
    /// server through it until the end.
    cuts: Vec<(String, Relay, bool)>,
    /// Each worker whose connection a relay pauses after its first commit, until the script
    /// resumes it ([`Cut::PauseAfterCommit`]).
    pauses: Vec<(String, Relay)>,
    /// Every statement of the scenario, when it is being recorded ([`Interleaving::record`]),
    /// and the relays that read the workers' statements off the wire.
    statements: Option<(Arc<Statements>, Vec<Relay>)>,
}

/// A session the script drives statement by statement (it holds the locks).
pub struct Session {
    name: String,
    /// Shared with the task of a step that may wait ([`Interleaving::start_step`]).
    client: Arc<tokio_postgres::Client>,
}

/// The code under test, running in a task of its own on a one-connection pool.
pub struct Worker<T> {
    name: String,
    backends: Backends,
    state: StepState<T>,
    task: Option<JoinHandle<T>>,
}

/// How the observer finds a worker's sessions: the one of its pool, and any other it opens from
/// the pool's options (a handler's call to another system, such as a relay's publish, on a
/// connection of its own), which carry the pool's `application_name`.
struct Backends {
    pid: i32,
    application_name: Option<String>,
}

/// A worker's sessions in `pg_stat_activity`, for the queries below (`$1` its pool's session,
/// `$2` its pool's application name, or NULL).
const THE_WORKERS: &str = "(pid = $1 OR ($2::text IS NOT NULL AND application_name = $2 \
                            AND datname = current_database()))";

/// What a killed worker did once its session was gone.
pub enum AfterKill<T> {
    /// It returned (an error, unless it hides one).
    Returned(T),
    /// It went on, on a new connection, and waits on a lock again: it is still running.
    LivesOn(Worker<T>),
}

/// Where a step stands once the script has looked.
enum StepState<T> {
    /// Waiting on a lock held by these sessions.
    Waiting {
        on: Vec<String>,
    },
    Finished(T),
}

/// Waits until `pool` holds its connections idle again (a handler's connection back, after
/// whatever the pool sends as it takes it: the ROLLBACK of a transaction the handler dropped),
/// for at most [`QUIESCE_WITHIN`]: a connection that never comes back is the pool's to drop.
pub(crate) async fn pool_at_rest(pool: &PgPool) {
    let started = Instant::now();
    while pool.num_idle() < pool.size() as usize && started.elapsed() < QUIESCE_WITHIN {
        tokio::time::sleep(POLL_EVERY).await;
    }
}

impl Interleaving {
    pub async fn new(db: &TestDatabase) -> Result<Interleaving, KitError> {
        // Recorded when the checks or `cargo workbook trace` ask for the statements.
        let recorded = statements::wanted().then(Statements::new);
        Ok(Interleaving {
            observer: db.session().await?,
            names: Vec::new(),
            trace: (recorded.clone()).map_or_else(Trace::default, Trace::recording),
            cuts: Vec::new(),
            pauses: Vec::new(),
            statements: recorded.map(|statements| (statements, Vec::new())),
        })
    }

    /// Records every statement of the scenario from now on ([`Statements`]): each scripted
    /// session's, and each worker's, read off the wire by a relay in front of its pool.
    pub fn record(&mut self) -> Arc<Statements> {
        let statements = Statements::new();
        self.statements = Some((Arc::clone(&statements), Vec::new()));
        self.trace.carry(Arc::clone(&statements));
        statements
    }

    /// The statements being recorded, if they are.
    pub fn statements(&self) -> Option<&Arc<Statements>> {
        self.statements.as_ref().map(|(statements, _)| statements)
    }

    /// Once every delivery has returned: closes the workers' `pools`, and waits until every
    /// relay has read their last words (a ROLLBACK the pool sends for a transaction its handler
    /// dropped, and its answer), so that the recorded statements end where the scenario did,
    /// the same every run. A pool that cannot close in a few seconds is left to its drop.
    pub(crate) async fn quiesce(&self, pools: impl Iterator<Item = &PgPool>) {
        for pool in pools {
            let _ = tokio::time::timeout(QUIESCE_WITHIN, pool.close()).await;
        }
        let held = (self.cuts.iter().map(|(_, relay, _)| relay))
            .chain(self.pauses.iter().map(|(_, relay)| relay));
        for relay in held {
            relay.let_go().await;
        }
        let relays = (self.cuts.iter().map(|(_, relay, _)| relay))
            .chain(self.pauses.iter().map(|(_, relay)| relay))
            .chain(self.statements.iter().flat_map(|(_, relays)| relays));
        for relay in relays {
            relay.quiet(QUIESCE_WITHIN).await;
        }
    }

    /// Keeps `relay`, which records a worker's statements, as long as the scenario.
    pub(crate) fn recording_through(&mut self, relay: Relay) {
        if let Some((_, relays)) = &mut self.statements {
            relays.push(relay);
        }
    }

    /// Opens a scripted session named `name`.
    pub async fn session(&mut self, db: &TestDatabase, name: &str) -> Result<Session, KitError> {
        let client = db.session().await?;
        let row = client
            .query_one("SELECT pg_backend_pid()", &[])
            .await
            .map_err(KitError::observer(format!("opening session {name}")))?;
        self.names.push((row.get(0), name.to_string()));
        Ok(Session {
            name: name.to_string(),
            client: Arc::new(client),
        })
    }

    /// Runs `sql` in `session`, which must not have to wait (a scripted session only ever
    /// takes locks nobody else holds yet), and records it. One that does wait would wait for
    /// ever, since the script moves on only once it returns: it is refused, naming the sessions
    /// it waits on.
    pub async fn step(&mut self, session: &Session, sql: &str) -> Result<(), KitError> {
        if let Some(statements) = self.statements() {
            statements.started(&session.name, sql, Vec::new());
        }
        let run = session.client.batch_execute(sql);
        tokio::pin!(run);
        let started = Instant::now();
        let done = loop {
            if let Ok(done) = tokio::time::timeout(POLL_AT_MOST_EVERY, &mut run).await {
                break done;
            }
            let pid = (self.pid_of(&session.name)).expect("a scripted session is known by its pid");
            let backends = Backends {
                pid,
                application_name: None,
            };
            let on = self.blocking(&session.name, &backends).await?;
            if !on.is_empty() {
                return Err(KitError::ScriptedStepWaits {
                    session: session.name.clone(),
                    sql: sql.to_string(),
                    on,
                });
            }
            if started.elapsed() > STEP_DEADLINE {
                return Err(KitError::Stuck {
                    session: session.name.clone(),
                    waited: STEP_DEADLINE,
                });
            }
        };
        done.map_err(KitError::observer(format!("{}: {sql}", session.name)))?;
        if let Some(statements) = self.statements() {
            statements.answered(&session.name, Answer::Done(vec!["ok".into()]));
        }
        self.trace.step(&session.name, sql);
        Ok(())
    }

    /// Starts `run` (the code under test) as `name` on `pool`, which must have exactly one
    /// connection so that the session it runs in is known, and waits until it has either
    /// finished or is waiting on a lock. `shown_as` is how the trace names the call.
    pub async fn start<T, Fut>(
        &mut self,
        name: &str,
        pool: &PgPool,
        shown_as: impl fmt::Display,
        run: impl FnOnce(PgPool) -> Fut,
    ) -> Result<Worker<T>, KitError>
    where
        Fut: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        assert_eq!(
            pool.options().get_max_connections(),
            1,
            "a worker's pool needs exactly one connection, or its backend pid is unknown"
        );
        let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
            .fetch_one(pool)
            .await
            .map_err(KitError::database("read a worker's backend pid"))?;
        self.names.push((pid, name.to_string()));
        let backends = Backends {
            pid,
            application_name: (pool.connect_options().get_application_name()).map(str::to_string),
        };

        let mut task = tokio::spawn(run(pool.clone()));
        let state = self
            .wait_until_waiting_or_finished(name, &backends, &mut task)
            .await?;
        match &state {
            StepState::Waiting { on } => self.trace_waits(name, shown_as, on),
            StepState::Finished(_) => self.trace.step(name, shown_as),
        }
        let task = matches!(state, StepState::Waiting { .. }).then_some(task);
        Ok(Worker {
            name: name.to_string(),
            backends,
            state,
            task,
        })
    }

    /// Crashes `worker` while it waits on a lock: its backend is terminated, as if the process
    /// running the handler had died, and PostgreSQL rolls back whatever its open transaction
    /// did. Returns once the backend is gone (so every lock it held is released) and the
    /// handler has returned, with what it returned: an error, since its connection died.
    pub async fn kill<T>(&mut self, worker: Worker<T>) -> Result<T, KitError> {
        match self.kill_then_follow(worker).await? {
            AfterKill::Returned(result) => Ok(result),
            AfterKill::LivesOn(worker) => {
                let name = worker.name.clone();
                match tokio::time::timeout(STEP_DEADLINE, worker.task.expect("it waits")).await {
                    Ok(Ok(result)) => Ok(result),
                    Ok(Err(e)) => std::panic::resume_unwind(e.into_panic()),
                    Err(_) => Err(KitError::Stuck {
                        session: name,
                        waited: STEP_DEADLINE,
                    }),
                }
            }
        }
    }

    /// [`Interleaving::kill`], for a handler that may live on: only its connection dies, and a
    /// handler that retries on a new one (its pool opens one, under the worker's application
    /// name) and waits on a lock again is a worker still running, which the script goes on
    /// with, rather than one that never returns.
    pub async fn kill_then_follow<T>(
        &mut self,
        worker: Worker<T>,
    ) -> Result<AfterKill<T>, KitError> {
        let Worker {
            name,
            backends,
            task,
            ..
        } = worker;
        let mut task = task.ok_or_else(|| KitError::NotWaiting {
            session: name.clone(),
        })?;
        // Every session of the worker: a process that dies takes all its connections along.
        let terminated: Vec<i32> = (self.observer)
            .query(
                &format!(
                    "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity \
                      WHERE {THE_WORKERS}"
                ),
                &[&backends.pid, &backends.application_name],
            )
            .await
            .map_err(KitError::observer(format!("terminating {name}")))?
            .iter()
            .map(|row| row.get(0))
            .collect();
        // Until those sessions are gone: not any session of the worker, since a handler that
        // lives on may open a new one at once (its pool replaces the lost connection), and that
        // one was never killed.
        let started = Instant::now();
        while self.any_alive(&name, &terminated).await? {
            if started.elapsed() > STEP_DEADLINE {
                return Err(KitError::Stuck {
                    session: name,
                    waited: STEP_DEADLINE,
                });
            }
            tokio::time::sleep(POLL_EVERY).await;
        }
        self.names.retain(|(known, _)| *known != backends.pid);
        self.trace.step(
            &name,
            "<killed: its session ends, so its transaction rolls back>",
        );
        // A new session of the worker is known by its pool's application name only.
        let backends = Backends {
            pid: 0,
            application_name: backends.application_name,
        };
        match (self.wait_until_waiting_or_finished(&name, &backends, &mut task)).await? {
            StepState::Finished(result) => Ok(AfterKill::Returned(result)),
            StepState::Waiting { on } => {
                let what = format!(
                    "<its handler goes on, on a new connection: now waiting on {}>",
                    on.join(", ")
                );
                self.trace.waits_in_words(&name, what, &on);
                Ok(AfterKill::LivesOn(Worker {
                    name,
                    backends,
                    state: StepState::Waiting { on },
                    task: Some(task),
                }))
            }
        }
    }

    /// Drops `worker`'s future right where it waits, as a request timeout, a client that hung
    /// up or a `select!` drops a task in async Rust: no more of its code runs (no error branch,
    /// no cleanup, only destructors), while the statement it was waiting in runs on in the
    /// database until it ends. What the worker had not committed is rolled back then, by sqlx,
    /// when the connection goes back to its pool; the run checks that it did ([`left_behind`]).
    ///
    /// [`left_behind`]: Interleaving::left_behind
    pub async fn abandon<T>(&mut self, worker: Worker<T>) -> Result<(), KitError> {
        let Worker { name, task, .. } = worker;
        let task = task.ok_or_else(|| KitError::NotWaiting {
            session: name.clone(),
        })?;
        task.abort();
        match task.await {
            Err(e) if e.is_cancelled() => {}
            Err(e) => std::panic::resume_unwind(e.into_panic()),
            // It returned before the abort reached it: the step saw it waiting a moment ago,
            // and the statement it waited in cannot have ended without a script step.
            Ok(_) => {}
        }
        self.trace.step(
            &name,
            "<abandoned: its future is dropped where it waits, and no more of its code runs; \
             the statement it waits in runs on>",
        );
        Ok(())
    }

    /// Cancels the statement `worker` waits in, as `statement_timeout` or a cancel request
    /// would: it fails with SQLSTATE 57014, its transaction is aborted, and its session lives
    /// on (the pool keeps it). Then looks again: the handler has either returned, or caught
    /// the error and waits once more.
    pub async fn cancel<T>(&mut self, worker: &mut Worker<T>) -> Result<(), KitError> {
        if worker.task.is_none() {
            return Err(KitError::NotWaiting {
                session: worker.name.clone(),
            });
        }
        let waiting_in = self.statement_of(worker).await?;
        self.observer
            .execute(
                &format!(
                    "SELECT pg_cancel_backend(pid) FROM pg_stat_activity \
                      WHERE {THE_WORKERS} AND state = 'active'"
                ),
                &[&worker.backends.pid, &worker.backends.application_name],
            )
            .await
            .map_err(KitError::observer(format!("cancelling {}", worker.name)))?;
        self.trace.step(
            &worker.name,
            "<cancelled: its statement fails with 57014, as on statement_timeout; its session lives on>",
        );
        // The cancel is a signal the backend acts on when it next looks: until the statement it
        // waited in has ended, the observer would still see it waiting there.
        let started = Instant::now();
        while self.statement_of(worker).await? == waiting_in
            && !worker.task.as_ref().is_some_and(JoinHandle::is_finished)
        {
            if started.elapsed() > STEP_DEADLINE {
                return Err(KitError::Stuck {
                    session: worker.name.clone(),
                    waited: STEP_DEADLINE,
                });
            }
            tokio::time::sleep(POLL_EVERY).await;
        }
        self.settle(worker).await
    }

    /// Which statements `worker`'s sessions are running, if any: each one's session and start
    /// time, as text.
    async fn statement_of<T>(&self, worker: &Worker<T>) -> Result<Option<String>, KitError> {
        let row = self
            .observer
            .query_one(
                &format!(
                    "SELECT string_agg(pid || ' ' || query_start, ', ' ORDER BY pid) \
                       FROM pg_stat_activity WHERE {THE_WORKERS} AND state = 'active'"
                ),
                &[&worker.backends.pid, &worker.backends.application_name],
            )
            .await
            .map_err(KitError::observer(format!("watching {}", worker.name)))?;
        Ok(row.get(0))
    }

    /// What a delivery that has returned left in its session, which its pool keeps for the
    /// next delivery: an open transaction, or a session-level advisory lock (which outlives
    /// every transaction). `pool` is the worker's one-connection pool: acquiring it waits until
    /// sqlx has put the connection back, flushing any rollback it owed. `waiting` names a later
    /// delivery already waiting on this session.
    pub async fn left_behind(
        &self,
        name: &str,
        pool: &PgPool,
        waiting: Option<&str>,
    ) -> Result<(), KitError> {
        let Some(pid) = self.pid_of(name) else {
            return Ok(()); // killed: its session is gone, and everything with it
        };
        // The pool takes the connection back in a task of its own (flushing the rollback of a
        // transaction the handler dropped), which a busy machine may run later than the pool's
        // two-second acquire timeout allows: wait for it as for a pool at rest, then acquire.
        pool_at_rest(pool).await;
        let held = pool
            .acquire()
            .await
            .map_err(KitError::database("take back a worker's connection"))?;
        let row = self
            .observer
            .query_opt(
                "SELECT coalesce(a.state, ''), \
                        (SELECT count(*) FROM pg_locks l \
                          WHERE l.pid = $1 AND l.locktype = 'advisory' AND l.granted) \
                   FROM pg_stat_activity a WHERE a.pid = $1",
                &[&pid],
            )
            .await
            .map_err(KitError::observer(format!("looking at what {name} left")))?;
        drop(held);
        // Its connection was cut at its COMMIT: that session is gone, and everything with it.
        let Some(row) = row else {
            return Ok(());
        };
        let state: String = row.get(0);
        let advisory: i64 = row.get(1);
        let left = if state.starts_with("idle in transaction") {
            format!(
                "is {state}: a transaction the delivery opened is still open, with every lock \
                 it took"
            )
        } else if advisory > 0 {
            format!(
                "holds {advisory} session-level advisory lock(s): pg_advisory_lock outlives \
                 the transaction, and only pg_advisory_unlock or the end of the session \
                 releases it, not a commit, a rollback or an error"
            )
        } else {
            return Ok(());
        };
        Err(KitError::LeftBehind {
            session: name.to_string(),
            left,
            waiting: waiting
                .map(|w| format!(", as {w} does here"))
                .unwrap_or_default(),
        })
    }

    fn pid_of(&self, name: &str) -> Option<i32> {
        (self.names.iter())
            .find(|(_, known)| known == name)
            .map(|(pid, _)| *pid)
    }

    /// The sessions a running worker waits on now, looked up afresh and not written to the
    /// trace (none for a worker that has returned).
    pub(crate) async fn waiting_now<T>(&self, worker: &Worker<T>) -> Result<Vec<String>, KitError> {
        match &worker.task {
            Some(task) if !task.is_finished() => {
                self.blocking(&worker.name, &worker.backends).await
            }
            _ => Ok(Vec::new()),
        }
    }

    /// Looks again at a waiting `worker` after the script changed something (killed the session
    /// it waited on, say): it has either finished, or waits on a session of the scenario that
    /// is still alive. Records the change.
    pub async fn settle<T>(&mut self, worker: &mut Worker<T>) -> Result<(), KitError> {
        self.settle_saying(worker, true).await
    }

    /// [`Interleaving::settle`] for a worker the last steps may not have touched: the trace
    /// says so only if it now waits on other sessions than before.
    pub(crate) async fn settle_if_changed<T>(
        &mut self,
        worker: &mut Worker<T>,
    ) -> Result<(), KitError> {
        self.settle_saying(worker, false).await
    }

    async fn settle_saying<T>(
        &mut self,
        worker: &mut Worker<T>,
        always: bool,
    ) -> Result<(), KitError> {
        let Some(mut task) = worker.task.take() else {
            return Ok(());
        };
        let state = self
            .wait_until_waiting_or_finished(&worker.name, &worker.backends, &mut task)
            .await?;
        if let StepState::Waiting { on } = &state {
            if always || on != worker.waiting_on() {
                self.trace_waits(&worker.name, "", on);
            }
            worker.task = Some(task);
        }
        worker.state = state;
        Ok(())
    }

    /// Waits for `worker` to finish and records its result, as `describe` words it.
    pub async fn finish<T>(
        &mut self,
        worker: Worker<T>,
        describe: impl FnOnce(&T) -> String,
    ) -> Result<T, KitError> {
        let result = match (worker.state, worker.task) {
            (StepState::Finished(result), _) => result,
            (StepState::Waiting { .. }, Some(task)) => {
                match tokio::time::timeout(STEP_DEADLINE, task).await {
                    Ok(Ok(result)) => result,
                    Ok(Err(e)) => std::panic::resume_unwind(e.into_panic()),
                    Err(_) => {
                        return Err(KitError::Stuck {
                            session: worker.name,
                            waited: STEP_DEADLINE,
                        });
                    }
                }
            }
            (StepState::Waiting { .. }, None) => unreachable!("a waiting worker keeps its task"),
        };
        self.let_go_of(&worker.name).await;
        self.note_cut(&worker.name);
        self.trace.done(&worker.name, describe(&result));
        Ok(result)
    }

    /// Watches `relay`, through which `worker` reaches the server, so that the trace says where
    /// it cut the worker's connection.
    pub(crate) fn cut_through(&mut self, worker: &str, relay: Relay) {
        self.cuts.push((worker.to_string(), relay, false));
    }

    /// Where each cut worker's connection was cut, and whether its handler committed again
    /// after the cut (on a new connection); and the workers whose relay never cut, since their
    /// handler committed nothing through it.
    pub(crate) fn cuts(&self) -> (Vec<(String, Cut, bool)>, Vec<String>) {
        for (_, relay, _) in &self.cuts {
            crate::engine::commit_points::counted(relay.commits());
        }
        // A run that only counts commits cuts nothing, and has found what it came for if the
        // handler committed at all.
        let counting = |r: &Relay| r.cut() == Cut::AfterEveryCommit && r.point().is_none();
        let (cut, never): (Vec<_>, Vec<_>) = (self.cuts.iter())
            .filter(|(_, r, _)| !(counting(r) && r.commits() > 0))
            .partition(|(_, r, _)| r.has_cut());
        (
            (cut.into_iter())
                .map(|(w, r, _)| (w.clone(), r.cut(), r.committed_since_the_cut()))
                .collect(),
            never.into_iter().map(|(w, _, _)| w.clone()).collect(),
        )
    }

    /// Once `worker`'s delivery has answered, the server lets go of the transaction its cut
    /// held open (if it did), and the next step meets it rolled back, every run.
    async fn let_go_of(&self, worker: &str) {
        for (_, relay, _) in self.cuts.iter().filter(|(w, _, _)| w == worker) {
            relay.let_go().await;
        }
    }

    /// Says in the trace, once, that `worker`'s connection was cut at its COMMIT, where.
    fn note_cut(&mut self, worker: &str) {
        let Some((_, relay, noted)) =
            (self.cuts.iter_mut()).find(|(w, r, noted)| w == worker && r.has_cut() && !*noted)
        else {
            return;
        };
        *noted = true;
        let what = match (relay.cut(), relay.point()) {
            // Not a cut: a paused worker is in `pauses`, and says so where it pauses.
            (Cut::PauseAfterCommit, _) => return,
            (Cut::BeforeCommitHeldOpen, _) => "<its COMMIT never reached the server: the \
                                               connection was cut, the server not told; it \
                                               kept the transaction open, in progress, a while, \
                                               then rolled it back>"
                .to_string(),
            (Cut::BeforeCommit, _) => "<its COMMIT never reached the server: the connection \
                                       was cut, and the server rolled its transaction back>"
                .to_string(),
            (Cut::AfterCommit, _) => "<the server committed its work, and the connection was \
                                      cut before the answer reached it>"
                .to_string(),
            (Cut::AfterEveryCommit, point) => format!(
                "<the server committed its commit number {} ({}), and that connection was cut \
                 before the answer reached it>",
                point.unwrap_or(0),
                relay.cut_after()
            ),
        };
        self.trace.step(worker, what);
    }

    /// Records a line that belongs to no session (the checks after the script, say).
    pub fn note(&mut self, what: impl fmt::Display) {
        self.trace.note(what);
    }

    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    async fn any_alive(&self, name: &str, pids: &[i32]) -> Result<bool, KitError> {
        let row = self
            .observer
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1))",
                &[&pids],
            )
            .await
            .map_err(KitError::observer(format!("watching {name} end")))?;
        Ok(row.get(0))
    }

    async fn wait_until_waiting_or_finished<T>(
        &self,
        name: &str,
        backends: &Backends,
        task: &mut JoinHandle<T>,
    ) -> Result<StepState<T>, KitError> {
        let started = Instant::now();
        let mut every = POLL_EVERY;
        loop {
            if task.is_finished() {
                self.let_go_of(name).await;
                return match task.await {
                    Ok(result) => Ok(StepState::Finished(result)),
                    Err(e) => std::panic::resume_unwind(e.into_panic()),
                };
            }
            let on = match self.paused(name) {
                true => vec![pause::PAUSED.to_string()],
                false => self.blocking(name, backends).await?,
            };
            if !on.is_empty() {
                if let Some(statements) = self.statements() {
                    statements.waiting(name, &on);
                }
                return Ok(StepState::Waiting { on });
            }
            if started.elapsed() > STEP_DEADLINE {
                return Err(KitError::Stuck {
                    session: name.to_string(),
                    waited: STEP_DEADLINE,
                });
            }
            // Until the next look, or the step's end, whichever comes first.
            if let Ok(joined) = tokio::time::timeout(every, &mut *task).await {
                self.let_go_of(name).await;
                return match joined {
                    Ok(result) => Ok(StepState::Finished(result)),
                    Err(e) => std::panic::resume_unwind(e.into_panic()),
                };
            }
            every = (every * 2).min(POLL_AT_MOST_EVERY);
        }
    }

    /// The sessions a worker is waiting on, by name: what any of its sessions waits on, apart
    /// from its own sessions (a worker that waits on itself is stuck, not waiting). The pool's
    /// session comes first. `pg_blocking_pids` is the server's own answer to "who holds the
    /// lock I want", and `pg_safe_snapshot_blocking_pids` to "whose transaction must end before
    /// my `SERIALIZABLE READ ONLY DEFERRABLE` snapshot is safe" (the two waits PostgreSQL's
    /// isolation tester watches), so this never guesses from timing.
    async fn blocking(&self, name: &str, backends: &Backends) -> Result<Vec<String>, KitError> {
        let rows = self
            .observer
            .query(
                &format!(
                    "SELECT pid, pg_blocking_pids(pid) || pg_safe_snapshot_blocking_pids(pid) \
                       FROM pg_stat_activity \
                      WHERE {THE_WORKERS} ORDER BY pid <> $1, pid"
                ),
                &[&backends.pid, &backends.application_name],
            )
            .await
            .map_err(KitError::observer(format!("watching {name}")))?;
        let own: Vec<i32> = rows.iter().map(|row| row.get(0)).collect();
        let mut pids: Vec<i32> = Vec::new();
        for row in &rows {
            for pid in row.get::<_, Vec<i32>>(1) {
                if !own.contains(&pid) && !pids.contains(&pid) {
                    pids.push(pid);
                }
            }
        }
        let mut on = Vec::new();
        for (known_pid, known_name) in &self.names {
            if pids.contains(known_pid) && !on.contains(known_name) {
                on.push(known_name.clone());
            }
        }
        let unknown: Vec<i32> = (pids.iter().copied())
            .filter(|pid| !self.names.iter().any(|(known, _)| known == pid))
            .collect();
        if !unknown.is_empty() {
            // Another worker's own connection (its pool's application name is the worker's
            // name), or a session this test never opened.
            let named = self
                .observer
                .query(
                    "SELECT pid, application_name FROM pg_stat_activity WHERE pid = ANY($1)",
                    &[&unknown],
                )
                .await
                .map_err(KitError::observer(format!("watching {name}")))?;
            for pid in unknown {
                let worker = (named.iter())
                    .find(|row| row.get::<_, i32>(0) == pid)
                    .map(|row| row.get::<_, String>(1))
                    .filter(|app| self.names.iter().any(|(_, known)| known == app));
                match worker {
                    Some(worker) if !on.contains(&worker) => on.push(worker),
                    Some(_) => {}
                    None => on.push(format!("pid {pid}, a session outside this test")),
                }
            }
        }
        Ok(on)
    }
}

impl<T> Worker<T> {
    /// The worker's name (or the scripted session's, for a session step).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the worker was waiting on a lock when the script last looked.
    pub fn was_waiting(&self) -> bool {
        matches!(self.state, StepState::Waiting { .. })
    }

    /// The sessions it waited on when the script last looked (none once it has finished).
    pub fn waiting_on(&self) -> &[String] {
        match &self.state {
            StepState::Waiting { on } => on,
            StepState::Finished(_) => &[],
        }
    }
}

/// How long closing a worker's pool, and its relay's last messages, may take: a few
/// round trips on this machine.
const QUIESCE_WITHIN: Duration = Duration::from_secs(5);

impl Drop for Interleaving {
    /// The statements of a scenario `cargo workbook trace` recorded are written out as it ends.
    fn drop(&mut self) {
        if let Some((recorded, _)) = &self.statements {
            statements::write_out(recorded);
        }
    }
}
