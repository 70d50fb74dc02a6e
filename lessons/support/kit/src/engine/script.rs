//! Interleavings as data, in the manner of PostgreSQL's isolation tester: a scenario names its
//! steps (SQL in a scripted session, a delivery to the code under test, a kill, a cancel, an
//! abandoned future), then gives
//! the order to run them in, one line:
//!
//! ```text
//! let script = Script::new(&handler, shown)
//!     .sql("holder", "lock", "BEGIN; SELECT 1 FROM orders WHERE id = 'ord-1' FOR UPDATE")
//!     .sql("holder", "commit", "COMMIT")
//!     .deliver("worker-1", "first", payment)
//!     .deliver("worker-2", "second", payment.clone());
//! let ran = interleaving.run(&db, script, "lock first second commit", describe).await?;
//! ```
//!
//! [`Interleaving::run`] plays the permutation with the kit's lock-wait machinery: a step
//! starts only once the one before has finished or is *seen* waiting on a lock, every step has
//! a deadline, and every step is written to the trace. Nothing sleeps.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use sqlx::PgPool;

use crate::engine::commit_points;
use crate::engine::interleaving::{
    AfterKill, Interleaving, STEP_DEADLINE, Session, StepResult, Worker,
};
use crate::engine::never_ran::{never_cut, never_ran};
use crate::engine::subject::Handler;
use crate::error::KitError;
use crate::servers::database::TestDatabase;
use crate::servers::relay::Cut;

/// How long a session's next step waits before the steps that block it are looked at again.
const LOOK_AGAIN_AFTER: Duration = Duration::from_millis(10);

type Delivery<T> = Box<dyn FnOnce(PgPool) -> Pin<Box<dyn Future<Output = T> + Send>> + Send>;

enum Action<T> {
    /// SQL in a session of the test's own, which takes locks and never waits.
    Sql { session: String, sql: String },
    /// SQL in a session of the test's own that may wait on a lock and may fail: a step of an
    /// anomaly played at some isolation level.
    Step { session: String, sql: String },
    /// The code under test, as `worker`, on a connection of its own.
    Deliver {
        worker: String,
        shown_as: String,
        run: Delivery<T>,
    },
    /// `worker`'s session is terminated while it waits, as when its process dies.
    Kill { worker: String },
    /// `worker`'s waiting statement is cancelled (57014); its session lives on.
    Cancel { worker: String },
    /// `worker`'s future is dropped where it waits; its statement runs on.
    Abandon { worker: String },
    /// `worker`'s delivery, not started yet, will reach the server through a relay that cuts
    /// its connection at its first COMMIT ([`Cut`]).
    Cut { worker: String, cut: Cut },
    /// `worker`, paused after a commit ([`Cut::PauseAfterCommit`]), gets its answer and runs on.
    Resume { worker: String },
}

impl<T> Action<T> {
    /// The session the step runs in or acts on: what it sends comes first among the statements
    /// sent during the step ([`Statements::all`]).
    fn session(&self) -> &str {
        match self {
            Action::Sql { session, .. } | Action::Step { session, .. } => session,
            Action::Deliver { worker, .. }
            | Action::Kill { worker }
            | Action::Cancel { worker }
            | Action::Abandon { worker }
            | Action::Cut { worker, .. }
            | Action::Resume { worker } => worker,
        }
    }
}

/// A scenario's named steps, not yet run: SQL for the test's sessions, and deliveries of
/// events to `handler`, the code under test.
pub struct Script<E, H: Handler<E>> {
    handler: H,
    /// How the trace shows a delivery of an event.
    shown: fn(&E) -> String,
    steps: Vec<(String, Action<H::Output>)>,
    /// Each session's setup, run on its own connection before the first step (a `BEGIN` there
    /// holds its locks from the start), and each session's teardown, run once the steps are
    /// done: by session, in the order the script names them.
    setups: Vec<(String, String)>,
    teardowns: Vec<(String, String)>,
}

/// What a played script leaves: each delivery's result (in the order they started, except that
/// a cancelled delivery's comes at its cancel step; a killed delivery's is kept apart), and
/// which deliveries were seen waiting when they started.
pub struct Ran<T> {
    pub outcomes: Outcomes<T>,
    waited: Vec<String>,
    /// What each killed delivery returned once its session was gone: nobody hears it when the
    /// process died, but when only the connection was lost the handler reports on, and its
    /// sender believes what it says.
    killed: Outcomes<T>,
    cancelled: Vec<String>,
    /// For each worker a cancel reached while it waited: the sessions it waited on.
    cancelled_waiting_on: Vec<(String, Vec<String>)>,
    abandoned: Vec<String>,
    /// Each worker whose connection a relay cut at its COMMIT, where, and whether it committed
    /// again after the cut.
    cut: Vec<(String, Cut, bool)>,
    /// What each [`Script::step`] did, by step name, in the order they finished.
    steps: Vec<(String, StepResult)>,
}

impl<T> Ran<T> {
    /// What the step named `step` ([`Script::step`]) did: its rows, or the server's error.
    /// Panics on a name the script has no such step for: the scenario is broken.
    pub fn step(&self, step: &str) -> &StepResult {
        (self.steps.iter())
            .find(|(name, _)| name == step)
            .map(|(_, result)| result)
            .unwrap_or_else(|| panic!("{step:?} is no session step of this script"))
    }

    /// Every session step's result, in the order they finished.
    pub fn steps(&self) -> &[(String, StepResult)] {
        &self.steps
    }

    /// Whether `worker` was waiting on a lock when it started (rather than done already).
    pub fn waited(&self, worker: &str) -> bool {
        self.waited.iter().any(|w| w == worker)
    }

    /// Whether `worker` was killed (a kill step of a worker that had already finished kills
    /// nothing, and its result is kept).
    pub fn killed(&self, worker: &str) -> bool {
        self.killed.iter().any(|(w, _)| w == worker)
    }

    /// Whether `worker`'s future was dropped while it waited (an abandon step of a worker that
    /// had already finished drops nothing, and its result is kept).
    pub fn abandoned(&self, worker: &str) -> bool {
        self.abandoned.iter().any(|w| w == worker)
    }

    /// Where `worker`'s connection was cut at its COMMIT, if it was: its result is in
    /// [`Ran::outcomes`], and is what its handler made of a COMMIT it got no answer to.
    pub fn cut(&self, worker: &str) -> Option<Cut> {
        (self.cut.iter())
            .find(|(w, _, _)| w == worker)
            .map(|(_, cut, _)| *cut)
    }

    /// Whether `worker`, once cut, committed a transaction that may have written on a new
    /// connection: a handler that retried, whose report may then be its retry's truth.
    pub fn committed_after_cut(&self, worker: &str) -> bool {
        (self.cut.iter()).any(|(w, _, again)| w == worker && *again)
    }

    /// Whether `worker`'s delivery ended with its cancelled statement (rather than catching
    /// the error and going on to wait again, or having finished before the cancel).
    pub fn cancelled(&self, worker: &str) -> bool {
        self.cancelled.iter().any(|w| w == worker)
    }

    /// The sessions `worker` waited on when a cancel reached it (none if it was not cancelled).
    pub fn waited_on_when_cancelled(&self, worker: &str) -> &[String] {
        (self.cancelled_waiting_on.iter())
            .find(|(w, _)| w == worker)
            .map_or(&[], |(_, on)| on.as_slice())
    }
}

/// Each delivery's result, by the worker that made it.
pub type Outcomes<T> = Vec<(String, T)>;

impl<T, X> Ran<Result<T, X>> {
    /// Every delivery's result but `worker`'s, when the script cancelled `worker`'s statement or
    /// killed its session: that error is the scenario's doing, and right. The second part is
    /// what `worker` reported instead of an error, if it did: a delivery whose transaction was
    /// rolled back must fail, and one that reports success hides its failure from the sender.
    pub fn apart_from_failed(self, worker: &str) -> (Outcomes<Result<T, X>>, Option<T>) {
        let (kept, hidden) = self.apart_from_every_failed(&[worker]);
        (
            kept,
            hidden.into_iter().next().map(|(_, reported)| reported),
        )
    }

    /// The same for several workers: every other delivery's result, and what each cancelled or
    /// killed one among `workers` reported instead of its error, by worker.
    pub fn apart_from_every_failed(
        self,
        workers: &[&str],
    ) -> (Outcomes<Result<T, X>>, Outcomes<T>) {
        let cancelled: Vec<String> = workers
            .iter()
            .filter(|worker| self.cancelled(worker))
            .map(|worker| worker.to_string())
            .collect();
        let mut kept = Vec::new();
        let mut hidden = Vec::new();
        for (name, outcome) in self.outcomes {
            match outcome {
                Err(_) if cancelled.contains(&name) => {}
                Ok(reported) if cancelled.contains(&name) => hidden.push((name, reported)),
                outcome => kept.push((name, outcome)),
            }
        }
        for (name, outcome) in self.killed {
            match outcome {
                Ok(reported) if workers.contains(&name.as_str()) => hidden.push((name, reported)),
                _ => {}
            }
        }
        (kept, hidden)
    }
}

/// The handler of a script that delivers nothing: only sessions and their steps.
pub type NoDelivery = fn(PgPool, ()) -> std::future::Ready<()>;

impl Script<(), NoDelivery> {
    /// A script of sessions only, with no code under test: an anomaly played by hand, as the
    /// isolation tester's specs are.
    pub fn sessions() -> Self {
        fn nothing(_: PgPool, (): ()) -> std::future::Ready<()> {
            std::future::ready(())
        }
        Script::new(&(nothing as NoDelivery), |()| String::new())
    }
}

impl<E: Send + 'static, H: Handler<E>> Script<E, H> {
    /// A script whose deliveries go to `handler`, shown in the trace as `shown` words them.
    pub fn new(handler: &H, shown: fn(&E) -> String) -> Self {
        Script {
            handler: handler.clone(),
            shown,
            steps: Vec::new(),
            setups: Vec::new(),
            teardowns: Vec::new(),
        }
    }

    /// `sql` runs on session `session`'s own connection before the first step: it opens the
    /// session, and what it locks is held from the start.
    pub fn setup(mut self, session: &str, sql: &str) -> Self {
        self.setups.push((session.into(), sql.into()));
        self
    }

    /// `sql` runs on session `session`'s own connection once the permutation's steps are done.
    pub fn teardown(mut self, session: &str, sql: &str) -> Self {
        self.teardowns.push((session.into(), sql.into()));
        self
    }

    /// Step `step`: `sql` in the test's session `session` (opened on first use).
    pub fn sql(mut self, session: &str, step: &str, sql: &str) -> Self {
        let action = Action::Sql {
            session: session.into(),
            sql: sql.into(),
        };
        self.steps.push((step.into(), action));
        self
    }

    /// Step `step`: `sql` in the test's session `session`, which may wait on a lock (the next
    /// step starts once it is seen waiting, and it finishes as soon as what it waits on lets
    /// it) and may fail (its error is its result, in [`Ran::step`]). A session runs one
    /// statement at a time: as in PostgreSQL's isolation tester, a step of a session whose
    /// previous step still waits starts once that one has finished.
    pub fn step(mut self, session: &str, step: &str, sql: &str) -> Self {
        let action = Action::Step {
            session: session.into(),
            sql: sql.into(),
        };
        self.steps.push((step.into(), action));
        self
    }

    /// Step `step`: the handler gets `event` as `worker`, on a pool of one connection so that
    /// its session is known.
    pub fn deliver(mut self, worker: &str, step: &str, event: E) -> Self {
        let handler = self.handler.clone();
        let action = Action::Deliver {
            worker: worker.into(),
            shown_as: (self.shown)(&event),
            run: Box::new(move |pool| Box::pin(handler.call(pool, event))),
        };
        self.steps.push((step.into(), action));
        self
    }

    /// Step `step`: `worker` dies while it waits; every other waiting worker is looked at again.
    pub fn kill(mut self, step: &str, worker: &str) -> Self {
        let action = Action::Kill {
            worker: worker.into(),
        };
        self.steps.push((step.into(), action));
        self
    }

    /// Step `step`: `worker`'s future is dropped while it waits, as a request timeout or a client
    /// that hangs up drops a request's task: none of its code runs after that `.await`, and its
    /// statement runs on in the database. Its delivery has no outcome: nobody is answered.
    pub fn abandon(mut self, step: &str, worker: &str) -> Self {
        let action = Action::Abandon {
            worker: worker.into(),
        };
        self.steps.push((step.into(), action));
        self
    }

    /// Step `step`, played before `worker`'s delivery: that delivery reaches the server through a
    /// relay that cuts its connection at its first transaction's COMMIT, before the COMMIT
    /// reaches the server or after the server has answered it, as `cut` says.
    pub fn cut(mut self, step: &str, worker: &str, cut: Cut) -> Self {
        let action = Action::Cut {
            worker: worker.into(),
            cut,
        };
        self.steps.push((step.into(), action));
        self
    }

    /// Step `step`: `worker`, paused after its first commit by a `cut` of
    /// [`Cut::PauseAfterCommit`], gets the server's answer and runs on. Every other waiting
    /// worker is looked at again.
    pub fn resume(mut self, step: &str, worker: &str) -> Self {
        let action = Action::Resume {
            worker: worker.into(),
        };
        self.steps.push((step.into(), action));
        self
    }

    /// Step `step`: the statement `worker` waits in is cancelled, as `statement_timeout` would
    /// cancel it; its session stays in its pool. Every other waiting worker is looked at again.
    pub fn cancel(mut self, step: &str, worker: &str) -> Self {
        let action = Action::Cancel {
            worker: worker.into(),
        };
        self.steps.push((step.into(), action));
        self
    }
}

impl Interleaving {
    /// Plays `script` in the order `permutation` names its steps ("lock first second commit"),
    /// then waits for every worker still running, in the order they started. A delivery starts
    /// once every worker an earlier step set free has returned or waits again. `describe` words
    /// a worker's result for the trace. A permutation that names an unknown step, or one step
    /// twice, is a broken scenario, and panics saying so.
    ///
    /// Each worker's pool lives until the script ends, as a consumer's pool outlives one
    /// delivery. Once the permutation is played, and again once every worker has returned, the
    /// run fails with [`KitError::LeftBehind`] if a delivery that returned left its session in
    /// a transaction or holding a session-level advisory lock.
    pub async fn run<E: Send + 'static, H: Handler<E>>(
        &mut self,
        db: &TestDatabase,
        script: Script<E, H>,
        permutation: &str,
        describe: impl Fn(&H::Output) -> String,
    ) -> Result<Ran<H::Output>, KitError> {
        let mut steps: HashMap<String, Action<H::Output>> = script.steps.into_iter().collect();
        let mut sessions: HashMap<String, Session> = HashMap::new();
        let mut workers: Vec<(String, Worker<H::Output>)> = Vec::new();
        let mut ran = Ran {
            outcomes: Vec::new(),
            waited: Vec::new(),
            killed: Vec::new(),
            cancelled: Vec::new(),
            cancelled_waiting_on: Vec::new(),
            abandoned: Vec::new(),
            cut: Vec::new(),
            steps: Vec::new(),
        };
        // Cuts set for deliveries not started yet, then each cut delivery's relay.
        let mut armed: Vec<(String, String, Cut)> = Vec::new();
        let mut cut_steps: Vec<(String, String)> = Vec::new();

        // Session steps seen waiting, by step name: each is looked at again after every step.
        let mut pending: Vec<(String, Worker<Result<StepResult, KitError>>)> = Vec::new();
        let mut pools: Vec<(String, PgPool)> = Vec::new();
        // Workers that returned as soon as they started.
        let mut finished: Vec<String> = Vec::new();
        for (session, sql) in &script.setups {
            if let Some(statements) = self.statements() {
                statements.next_step(session);
            }
            let opened = self.session(db, session).await?;
            self.step(&opened, sql).await?;
            sessions.insert(session.clone(), opened);
        }
        for name in permutation.split_whitespace() {
            let action = steps.remove(name).unwrap_or_else(|| {
                panic!("the permutation {permutation:?} names {name:?}, which is no step or is named twice")
            });
            if self.statements().is_some() {
                let returned: Vec<&str> = ran.outcomes.iter().map(|(n, _)| n.as_str()).collect();
                self.let_the_last_step_settle(&mut workers, &pools, &returned)
                    .await?;
            }
            if let Some(statements) = self.statements() {
                statements.next_step(action.session());
            }
            match action {
                Action::Sql { session, sql } => {
                    if !sessions.contains_key(&session) {
                        let opened = self.session(db, &session).await?;
                        sessions.insert(session.clone(), opened);
                    }
                    self.step(&sessions[&session], &sql).await?;
                }
                Action::Step { session, sql } => {
                    // Its session's step still waits: it finishes first, however long that
                    // takes (a deadlock is the server's to break, as it breaks one).
                    let started = Instant::now();
                    while pending.iter().any(|(_, w)| w.name() == session) {
                        if !self.settle_pending(&mut pending, &mut ran).await? {
                            tokio::time::sleep(LOOK_AGAIN_AFTER).await;
                        }
                        if started.elapsed() > STEP_DEADLINE {
                            return Err(KitError::Stuck {
                                session,
                                waited: STEP_DEADLINE,
                            });
                        }
                    }
                    if !sessions.contains_key(&session) {
                        let opened = self.session(db, &session).await?;
                        sessions.insert(session.clone(), opened);
                    }
                    let started = self.start_step(&sessions[&session], &sql).await?;
                    if started.was_waiting() {
                        pending.push((name.to_string(), started));
                    } else {
                        let result = self.finish_step(started).await?;
                        ran.steps.push((name.to_string(), result));
                    }
                }
                Action::Deliver {
                    worker,
                    shown_as,
                    run,
                } => {
                    // A delivery starts once what the steps before it set free has settled: a
                    // worker they released has returned (the trace says so here) or waits
                    // again, so that nothing it does can happen after the new delivery starts.
                    let mut at = 0;
                    while at < workers.len() {
                        self.settle_if_changed(&mut workers[at].1).await?;
                        if workers[at].1.was_waiting() {
                            at += 1;
                            continue;
                        }
                        let (done, returned) = workers.remove(at);
                        let result = self.finish(returned, &describe).await?;
                        ran.outcomes.push((done.clone(), result));
                        finished.push(done);
                    }
                    let pool = match (armed.iter()).position(|(_, w, _)| *w == worker) {
                        Some(at) => {
                            let (step, _, cut) = armed.remove(at);
                            let point = commit_points::aimed();
                            let recording = self.statements().cloned();
                            let (pool, relay) =
                                db.pool_cut((cut, point), 1, &worker, recording).await?;
                            if cut == Cut::PauseAfterCommit {
                                self.pause_through(&worker, relay);
                            } else {
                                self.cut_through(&worker, relay);
                                cut_steps.push((step, worker.clone()));
                            }
                            pool
                        }
                        None => match self.statements().cloned() {
                            Some(statements) => {
                                let (pool, relay) =
                                    db.pool_recorded(1, &worker, &statements).await?;
                                self.recording_through(relay);
                                pool
                            }
                            None => db.pool_named(1, &worker).await?,
                        },
                    };
                    let started = self.start(&worker, &pool, shown_as, run).await?;
                    pools.push((worker.clone(), pool));
                    if started.was_waiting() {
                        ran.waited.push(worker.clone());
                        workers.push((worker, started));
                    } else {
                        // It returned without waiting: the trace says so at once, not after
                        // steps that happened later (it never waited for them).
                        let result = self.finish(started, &describe).await?;
                        ran.outcomes.push((worker.clone(), result));
                        finished.push(worker);
                    }
                }
                // It never touched what was locked: there was no moment to kill it in, or
                // to cancel it.
                Action::Kill { worker } if finished.contains(&worker) => {
                    never_ran(name, &worker, "kill");
                }
                Action::Cancel { worker } if finished.contains(&worker) => {
                    never_ran(name, &worker, "cancel");
                }
                Action::Cut { worker, cut } => {
                    if pools.iter().any(|(started, _)| *started == worker) {
                        panic!("step {name:?} cuts {worker:?}, whose delivery has started");
                    }
                    armed.push((name.to_string(), worker, cut));
                }
                Action::Abandon { worker } if finished.contains(&worker) => {
                    never_ran(name, &worker, "abandon");
                }
                Action::Resume { worker } if finished.contains(&worker) => {
                    never_ran(name, &worker, "resume");
                }
                Action::Resume { worker } => {
                    let at = position_of(&workers, &worker, name);
                    self.resume(&worker).await;
                    self.settle(&mut workers[at].1).await?;
                    if !workers[at].1.was_waiting() {
                        let (_, resumed) = workers.remove(at);
                        let result = self.finish(resumed, &describe).await?;
                        ran.outcomes.push((worker, result));
                    }
                    for (_, other) in &mut workers {
                        self.settle_if_changed(other).await?;
                    }
                }
                Action::Abandon { worker } => {
                    let (_, dropped) = workers.remove(position_of(&workers, &worker, name));
                    if dropped.was_waiting() {
                        self.abandon(dropped).await?;
                        ran.abandoned.push(worker);
                    } else {
                        never_ran(name, &worker, "abandon");
                        let result = self.finish(dropped, &describe).await?;
                        ran.outcomes.push((worker, result));
                    }
                }
                Action::Kill { worker } => {
                    let (_, victim) = workers.remove(position_of(&workers, &worker, name));
                    if victim.was_waiting() {
                        match self.kill_then_follow(victim).await? {
                            AfterKill::Returned(reported) => ran.killed.push((worker, reported)),
                            AfterKill::LivesOn(living) => workers.push((worker, living)),
                        }
                        for (_, other) in &mut workers {
                            self.settle(other).await?;
                        }
                    } else {
                        // It never touched what was locked: there was no moment to kill it in.
                        never_ran(name, &worker, "kill");
                        let result = self.finish(victim, &describe).await?;
                        ran.outcomes.push((worker, result));
                    }
                }
                Action::Cancel { worker } => {
                    let at = position_of(&workers, &worker, name);
                    // A worker that had finished already had no statement to cancel.
                    let waited = workers[at].1.was_waiting();
                    if waited {
                        let on = workers[at].1.waiting_on().to_vec();
                        ran.cancelled_waiting_on.push((worker.clone(), on));
                        self.cancel(&mut workers[at].1).await?;
                    } else {
                        never_ran(name, &worker, "cancel");
                    }
                    if !workers[at].1.was_waiting() {
                        let (_, victim) = workers.remove(at);
                        let result = self.finish(victim, &describe).await?;
                        ran.outcomes.push((worker.clone(), result));
                        if waited {
                            ran.cancelled.push(worker);
                        }
                    }
                    for (_, other) in &mut workers {
                        self.settle(other).await?;
                    }
                }
            }
            // The step may have released what a session step waited on: it finishes now, so
            // the trace shows it where it happened.
            self.settle_pending(&mut pending, &mut ran).await?;
        }
        for (step, waiting) in pending {
            let result = self.finish_step(waiting).await?;
            ran.steps.push((step, result));
        }
        for (session, sql) in &script.teardowns {
            if let Some(opened) = sessions.get(session) {
                self.step(opened, sql).await?;
            }
        }
        // A delivery still waiting on a scripted session when the permutation ends waits for
        // ever: nothing is left to end that session's transaction. That is the schedule's
        // fault, not the handler's, and is said so at once.
        for (name, worker) in &workers {
            let on: Vec<String> = (self.waiting_now(worker).await?.into_iter())
                .filter(|on| sessions.contains_key(on.as_str()))
                .collect();
            if !on.is_empty() {
                return Err(KitError::ScheduleEnds {
                    worker: name.clone(),
                    on,
                });
            }
        }
        let returned: Vec<&str> = (pools.iter())
            .map(|(name, _)| name.as_str())
            .filter(|name| {
                !workers
                    .iter()
                    .any(|(w, worker)| w == name && worker.was_waiting())
            })
            .collect();
        // A delivery waiting on one that has returned waits forever: say what that one left.
        for name in &returned {
            let waiting = (workers.iter())
                .find(|(_, w)| w.waiting_on().iter().any(|on| on == name))
                .map(|(waiting, _)| waiting.as_str());
            self.left_behind(name, pool_of(&pools, name), waiting)
                .await?;
        }
        for (worker, running) in workers {
            let result = self.finish(running, &describe).await?;
            ran.outcomes.push((worker, result));
        }
        for (name, pool) in &pools {
            if !returned.contains(&name.as_str()) {
                self.left_behind(name, pool, None).await?;
            }
        }
        let (cut, uncut) = self.cuts();
        for (step, worker) in &cut_steps {
            if uncut.contains(worker) {
                never_cut(step, worker);
            }
        }
        ran.cut = cut;
        if self.statements().is_some() {
            self.quiesce(pools.iter().map(|(_, pool)| pool)).await;
        }
        // In the order the workers started, whenever each returned: scenarios read them so.
        ran.outcomes
            .sort_by_key(|(name, _)| pools.iter().position(|(started, _)| started == name));
        Ok(ran)
    }
}

impl Interleaving {
    /// While statements are recorded, before the next step begins: each running delivery the
    /// last step may have set free runs to its next wait or to its end, and each that has
    /// returned has its pool take its connection back (answering the ROLLBACK of a transaction
    /// the handler dropped). So each statement is recorded in the step that let it run, the
    /// same every run, rather than in whichever step the engine had reached when it was sent.
    /// `returned`: the deliveries whose results are in already. A delivery abandoned or killed
    /// is neither: its pool may never take its connection back.
    async fn let_the_last_step_settle<T>(
        &mut self,
        workers: &mut [(String, Worker<T>)],
        pools: &[(String, PgPool)],
        returned: &[&str],
    ) -> Result<(), KitError> {
        for (_, worker) in workers.iter_mut() {
            self.settle_if_changed(worker).await?;
        }
        let returned_now =
            |name: &str| (workers.iter()).any(|(w, worker)| w == name && !worker.was_waiting());
        for (name, pool) in pools {
            if returned.contains(&name.as_str()) || returned_now(name) {
                crate::engine::interleaving::pool_at_rest(pool).await;
            }
        }
        Ok(())
    }

    /// Looks again at each session step that waited, in the order they started waiting, as
    /// the isolation tester does: one that has finished is recorded now, so the trace shows it
    /// where it happened. Whether any finished.
    async fn settle_pending<T>(
        &mut self,
        pending: &mut Vec<(String, Worker<Result<StepResult, KitError>>)>,
        ran: &mut Ran<T>,
    ) -> Result<bool, KitError> {
        let mut any = false;
        for (step, mut waiting) in std::mem::take(pending) {
            self.settle_step(&mut waiting).await?;
            if waiting.was_waiting() {
                pending.push((step, waiting));
            } else {
                let result = self.finish_step(waiting).await?;
                ran.steps.push((step, result));
                any = true;
            }
        }
        Ok(any)
    }
}

/// Where `worker` is among the running workers. A step that names a worker the script never
/// started, or one already killed or cancelled, is a broken scenario, and panics saying so.
fn position_of<T>(workers: &[(String, Worker<T>)], worker: &str, step: &str) -> usize {
    (workers.iter())
        .position(|(name, _)| name == worker)
        .unwrap_or_else(|| panic!("step {step:?} acts on {worker:?}, which is not running"))
}

fn pool_of<'a>(pools: &'a [(String, PgPool)], worker: &str) -> &'a PgPool {
    let (_, pool) = (pools.iter())
        .find(|(name, _)| name == worker)
        .expect("every worker has its pool");
    pool
}
