//! A spec of sessions only, played exactly as PostgreSQL's isolation tester plays it, and
//! written as it writes it (`src/test/isolation/isolationtester.c`, PostgreSQL 15), so that a
//! `diff` against PostgreSQL's expected output, or against the real `isolationtester` run on
//! the same spec, means something.
//!
//! Its rules, which `cargo workbook play` and the oracle tests hold it to:
//!
//! - Each permutation starts from the spec's setups (on a connection of their own), then each
//!   session's setup on the session's own connection, and ends with each session's teardown,
//!   then the spec's.
//! - A step starts once every earlier step of its session is done, and the step before it in
//!   the permutation is done or *deemed blocked*: seen waiting on a lock or a safe snapshot
//!   (`pg_isolation_test_session_is_blocked`, the function the tester asks), or done but held
//!   back by a marker. A session whose step is blocked finishes that step before its next one
//!   starts, however long that takes: a deadlock is then broken by the server, as it would be.
//! - `(*)` reports a step waiting as soon as it starts; `(other)` holds its report back while
//!   `other` runs; `(other notices N)` until `other`'s session has sent N notices since.
//! - What a step returns is printed as libpq's `PQprint` prints it (aligned, `|` between
//!   columns, numbers to the right), an error as `ERROR:  message`, a notice as the session's
//!   name and the message, when the tester would read it.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;
use tokio_postgres::{AsyncMessage, Client};

use crate::engine::spec::{Marker, Spec};
use crate::error::KitError;
use crate::servers::database::TestDatabase;
use crate::words::statements::Statements;

mod returned;
pub(crate) use returned::simple_query_to_ready;
use returned::{Returned, run};

/// How often the tester looks whether a running step waits (isolationtester.c: every 10 ms).
const LOOK_EVERY: Duration = Duration::from_millis(10);

/// One permutation as played: its steps, and every statement its sessions sent, for the
/// stepper.
pub struct PlayedPermutation {
    pub order: String,
    pub statements: Arc<Statements>,
}

/// One session of the spec: its connection, and the step it runs, if any.
struct Conn {
    name: String,
    client: Arc<Client>,
    pid: i32,
    heard: UnboundedReceiver<AsyncMessage>,
    /// Notifications read but not yet printed: the tester prints them once a step of this
    /// session is done.
    notifications: VecDeque<String>,
    total_notices: u32,
    /// The step this session runs, from its start until the tester reports it done.
    active: Option<Active>,
    /// What the active step returned, when it is done but its report is held back.
    done: Option<Vec<Returned>>,
}

/// A step a session runs: its place in the permutation, its name, and its task (until it
/// has finished).
struct Active {
    at: usize,
    name: String,
    task: JoinHandle<Result<Vec<Returned>, KitError>>,
}

/// One permutation's step: the step's name, its session, its SQL, and its markers, each with
/// the notice count it waits for (set when the step starts).
struct PStep<'a> {
    name: &'a str,
    session: usize,
    sql: &'a str,
    markers: Vec<(&'a Marker, u32)>,
}

/// Where what the tester prints goes, line by line, as it prints it.
pub type Out<'o> = &'o mut (dyn FnMut(&str) + Send);

/// Plays `spec` on `db`, every permutation it names (or every interleaving, when it names
/// none), and writes what the isolation tester prints to `out`: from "Parsed test spec with N
/// sessions" to the last step of the last permutation. `step_wait` is the tester's
/// `PGISOLATIONTIMEOUT`: after it, a step is cancelled; after twice that, the play fails.
/// `only`: play just that permutation (counted from 1, in the order they would be played).
/// Returns each permutation played, with its sessions' statements.
pub async fn play(
    spec: &Spec,
    db: &TestDatabase,
    step_wait: Duration,
    only: Option<usize>,
    out: Out<'_>,
) -> Result<Vec<PlayedPermutation>, KitError> {
    let count = spec.orders().len();
    if let Some(n) = only.filter(|n| !(1..=count).contains(n)) {
        return Err(tester_failed(format!(
            "there is no permutation {n}: this spec plays {count} (1 to {count})"
        )));
    }
    out(&format!(
        "Parsed test spec with {} sessions\n",
        spec.sessions.len()
    ));
    let control = db.session().await?;
    let mut conns = Vec::new();
    for session in &spec.sessions {
        let (client, heard) = db.session_heard().await?;
        // The session's name after the application's, as the tester sets it, for
        // `pg_stat_activity` and the server's log.
        let pid: i32 = (client.query_one(
            "SELECT pg_backend_pid(), set_config('application_name', \
                    current_setting('application_name') || '/' || $1, false)",
            &[&session.name],
        ))
        .await
        .map_err(KitError::observer(format!(
            "opening session {}",
            session.name
        )))?
        .get(0);
        conns.push(Conn {
            name: session.name.clone(),
            client: Arc::new(client),
            pid,
            heard,
            notifications: VecDeque::new(),
            total_notices: 0,
            active: None,
            done: None,
        });
    }
    let pids: Vec<String> = conns.iter().map(|c| c.pid.to_string()).collect();
    let blocked = format!(
        "SELECT pg_catalog.pg_isolation_test_session_is_blocked($1, '{{{}}}')",
        pids.join(",")
    );
    let mut tester = Tester {
        spec,
        control: Arc::new(control),
        blocked,
        conns,
        step_wait,
        any_new_notice: false,
        out,
        statements: Statements::new(),
    };
    // The permutations the file names, with their markers; or every interleaving.
    let named: Vec<(Vec<String>, Vec<Vec<Marker>>)> = (spec.permutations.iter())
        .map(|p| (p.steps.clone(), p.markers.clone()))
        .collect();
    let orders = match named.is_empty() {
        false => named,
        true => (spec.orders().into_iter())
            .map(|order| {
                let none = vec![Vec::new(); order.len()];
                (order, none)
            })
            .collect(),
    };
    let mut played = Vec::new();
    for (n, (order, markers)) in orders.iter().enumerate() {
        if only.is_some_and(|only| only != n + 1) {
            continue;
        }
        let steps: Vec<PStep<'_>> = (order.iter().zip(markers))
            .map(|(name, markers)| tester.pstep(name, markers))
            .collect();
        tester.statements = Statements::new();
        tester.permutation(steps).await?;
        played.push(PlayedPermutation {
            order: order.join(" "),
            statements: Arc::clone(&tester.statements),
        });
    }
    Ok(played)
}

struct Tester<'s, 'o> {
    spec: &'s Spec,
    control: Arc<Client>,
    /// The lock-wait query, with every session's pid.
    blocked: String,
    conns: Vec<Conn>,
    step_wait: Duration,
    /// Set when any session's notice is read: steps held back by markers are looked at again.
    any_new_notice: bool,
    out: Out<'o>,
    /// The statements of the permutation being played, for the stepper.
    statements: Arc<Statements>,
}

impl<'s> Tester<'s, '_> {
    fn pstep<'m>(&self, name: &str, markers: &'m [Marker]) -> PStep<'m>
    where
        's: 'm,
    {
        let (session, step) = (self.spec.sessions.iter().enumerate())
            .find_map(|(at, s)| Some((at, s.steps.iter().find(|step| step.name == name)?)))
            .expect("a checked spec names only its steps");
        let sql = match &step.action {
            crate::engine::spec::Action::Sql(sql) => sql.as_str(),
            _ => unreachable!("a spec of sessions only"),
        };
        PStep {
            name: &step.name,
            session,
            sql,
            markers: markers.iter().map(|m| (m, 0)).collect(),
        }
    }

    fn print(&mut self, text: &str) {
        (self.out)(text);
    }

    async fn permutation(&mut self, mut steps: Vec<PStep<'s>>) -> Result<(), KitError> {
        let names: Vec<&str> = steps.iter().map(|s| s.name).collect();
        self.print(&format!("\nstarting permutation: {}\n", names.join(" ")));
        for sql in &self.spec.setup {
            if let Err(message) = self.exec(None, sql).await? {
                return Err(tester_failed(format!("setup failed: {message}")));
            }
        }
        for at in 0..self.conns.len() {
            let Some(sql) = self.spec.sessions[at].setup.as_deref() else {
                continue;
            };
            if let Err(message) = self.exec(Some(at), sql).await? {
                let name = &self.conns[at].name;
                return Err(tester_failed(format!(
                    "setup of session {name} failed: {message}"
                )));
            }
        }

        let mut waiting: Vec<usize> = Vec::new();
        for at in 0..steps.len() {
            let session = steps[at].session;
            // A session whose earlier step is blocked finishes it before this one starts.
            let started = Instant::now();
            while let Some(old) = self.conns[session].active.as_ref().map(|a| a.at) {
                if !self.try_complete(&mut steps, old, true, false).await? {
                    waiting.retain(|w| *w != old);
                }
                waiting = self.try_complete_all(&mut steps, waiting, false).await?;
                if self.conns[session].active.is_some() && started.elapsed() > 2 * self.step_wait {
                    return Err(tester_failed(format!(
                        "step {} timed out after {} seconds",
                        steps[old].name,
                        started.elapsed().as_secs()
                    )));
                }
            }
            let conn = &mut self.conns[session];
            self.statements.next_step(&conn.name);
            self.statements
                .started(&conn.name, steps[at].sql, Vec::new());
            let (client, sql) = (Arc::clone(&conn.client), steps[at].sql.to_string());
            conn.active = Some(Active {
                at,
                name: steps[at].name.to_string(),
                task: tokio::spawn(async move { run(&client, &sql).await }),
            });
            conn.done = None;
            for (marker, target) in &mut steps[at].markers {
                if let Marker::Notices(other, count) = marker {
                    let other = self.session_of(other);
                    *target = count + self.conns[other].total_notices;
                }
            }
            let must_wait = self.try_complete(&mut steps, at, false, true).await?;
            waiting = self.try_complete_all(&mut steps, waiting, false).await?;
            if must_wait {
                waiting.push(at);
            }
        }
        let waiting = self.try_complete_all(&mut steps, waiting, true).await?;
        if !waiting.is_empty() {
            return Err(tester_failed(
                "failed to complete permutation due to mutually-blocking steps".into(),
            ));
        }
        // A teardown that fails is said on the tester's standard error, and the play goes on.
        for at in 0..self.conns.len() {
            if let Some(sql) = self.spec.sessions[at].teardown.as_deref() {
                let _ = self.exec(Some(at), sql).await?;
            }
        }
        if let Some(sql) = &self.spec.teardown {
            let _ = self.exec(None, sql).await?;
        }
        Ok(())
    }

    /// A setup or a teardown, on session `at`'s connection or the control connection, as
    /// `PQexec` runs it: of its statements' results only the last counts, printed if it has
    /// rows; an error is returned, for the caller to say.
    async fn exec(&mut self, at: Option<usize>, sql: &str) -> Result<Result<(), String>, KitError> {
        let client = match at {
            Some(at) => Arc::clone(&self.conns[at].client),
            None => Arc::clone(&self.control),
        };
        if let Some(at) = at {
            self.statements.next_step(&self.conns[at].name);
            self.statements
                .started(&self.conns[at].name, sql, Vec::new());
        }
        let results = run(&client, sql).await?;
        if let Some(at) = at {
            self.hear(at);
            let name = &self.conns[at].name;
            self.statements.answered(name, Returned::answer(&results));
        }
        match results.last() {
            Some(Returned::Error { message, .. }) => Ok(Err(message.clone())),
            Some(rows @ Returned::Rows { .. }) => {
                let rows = rows.clone();
                self.print_results(&[rows]);
                Ok(Ok(()))
            }
            _ => Ok(Ok(())),
        }
    }

    fn session_of(&self, step: &str) -> usize {
        (self.spec.sessions.iter())
            .position(|s| s.steps.iter().any(|st| st.name == step))
            .expect("a checked marker names a step")
    }

    /// Looks at each step in `waiting` again, as `try_complete_steps` does: the ones done are
    /// reported and dropped; while a step held back by a marker remains and something changed
    /// (a step done, a notice), it looks again. `blocking`: wait for each to finish (the end of
    /// a permutation), rather than take a lock wait for an answer.
    async fn try_complete_all(
        &mut self,
        steps: &mut [PStep<'_>],
        mut waiting: Vec<usize>,
        blocking: bool,
    ) -> Result<Vec<usize>, KitError> {
        loop {
            self.any_new_notice = false;
            let before = waiting.len();
            let mut have_blocker = false;
            let mut w = 0;
            while w < waiting.len() {
                if self
                    .try_complete(steps, waiting[w], true, !blocking)
                    .await?
                {
                    have_blocker |= !steps[waiting[w]].markers.is_empty();
                    w += 1;
                } else {
                    waiting.remove(w);
                }
            }
            if !(have_blocker && (waiting.len() < before || self.any_new_notice)) {
                return Ok(waiting);
            }
        }
    }

    /// `try_complete_step`: waits for step `at` to finish, or, when `nonblock`, until it is
    /// seen waiting. Returns whether it is *not* done (waiting, or held back by a marker).
    /// `retry`: the step was looked at before, and said it waits, if it did.
    async fn try_complete(
        &mut self,
        steps: &mut [PStep<'_>],
        at: usize,
        retry: bool,
        nonblock: bool,
    ) -> Result<bool, KitError> {
        let (name, sql, session) = (steps[at].name, steps[at].sql, steps[at].session);
        if !retry && steps[at].markers.iter().any(|(m, _)| **m == Marker::Once) {
            self.print(&format!("step {name}: {sql} <waiting ...>\n"));
            return Ok(true);
        }
        let started = Instant::now();
        let mut cancelled = false;
        while self.conns[session].done.is_none() {
            let finished = {
                let Some(active) = &mut self.conns[session].active else {
                    break;
                };
                match tokio::time::timeout(LOOK_EVERY, &mut active.task).await {
                    Ok(joined) => {
                        Some(joined.unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))?)
                    }
                    Err(_) => None,
                }
            };
            self.hear(session);
            if let Some(results) = finished {
                self.conns[session].done = Some(results);
                break;
            }
            if nonblock && self.is_blocked(session).await? {
                // Whatever came in while the tester looked is read first, as libpq would.
                self.hear(session);
                if !retry {
                    self.print(&format!("step {name}: {sql} <waiting ...>\n"));
                    let on = self.blockers(session).await?;
                    self.statements.waiting(&self.conns[session].name, &on);
                }
                return Ok(true);
            }
            let waited = started.elapsed();
            if waited > self.step_wait && !cancelled {
                let token = self.conns[session].client.cancel_token();
                if token.cancel_query(tokio_postgres::NoTls).await.is_ok() {
                    self.print(&format!(
                        "isolationtester: canceling step {name} after {} seconds\n",
                        waited.as_secs()
                    ));
                    cancelled = true;
                }
            }
            if waited > 2 * self.step_wait {
                return Err(tester_failed(format!(
                    "step {name} timed out after {} seconds",
                    waited.as_secs()
                )));
            }
        }
        if self.has_blocker(&steps[at]) {
            if !retry {
                self.print(&format!("step {name}: {sql} <waiting ...>\n"));
            }
            return Ok(true);
        }
        match retry {
            true => self.print(&format!("step {name}: <... completed>\n")),
            false => self.print(&format!("step {name}: {sql}\n")),
        }
        let results = self.conns[session].done.take().unwrap_or_default();
        (self.statements).answered(&self.conns[session].name, Returned::answer(&results));
        self.print_results(&results);
        self.hear(session);
        while let Some(notification) = self.conns[session].notifications.pop_front() {
            let line = format!("{}: {notification}\n", self.conns[session].name);
            self.print(&line);
        }
        self.conns[session].active = None;
        Ok(false)
    }

    /// `step_has_blocker`: a marker that holds the step's report back now.
    fn has_blocker(&self, step: &PStep<'_>) -> bool {
        step.markers.iter().any(|(marker, target)| match marker {
            Marker::Once => false,
            // Any running instance of the named step holds the report back.
            Marker::After(other) => {
                let conn = &self.conns[self.session_of(other)];
                conn.active
                    .as_ref()
                    .is_some_and(|active| &active.name == other)
            }
            Marker::Notices(other, _) => self.conns[self.session_of(other)].total_notices < *target,
        })
    }

    /// Reads what session `at` was sent unasked, as libpq does when the tester reads from its
    /// connection: notices are printed at once, and counted; notifications wait for the end of
    /// the session's step.
    fn hear(&mut self, at: usize) {
        while let Ok(message) = self.conns[at].heard.try_recv() {
            match message {
                AsyncMessage::Notice(notice) => {
                    let mut text = format!("{}:  {}\n", notice.severity(), notice.message());
                    if let Some(detail) = notice.detail() {
                        text.push_str(&format!("DETAIL:  {detail}\n"));
                    }
                    if let Some(hint) = notice.hint() {
                        text.push_str(&format!("HINT:  {hint}\n"));
                    }
                    let line = format!("{}: {text}", self.conns[at].name);
                    self.print(&line);
                    self.conns[at].total_notices += 1;
                    self.any_new_notice = true;
                }
                AsyncMessage::Notification(notification) => {
                    let from = (self.conns.iter())
                        .find(|c| c.pid == notification.process_id())
                        .map_or_else(
                            || format!("PID {}", notification.process_id()),
                            |c| c.name.clone(),
                        );
                    self.conns[at].notifications.push_back(format!(
                        "NOTIFY \"{}\" with payload \"{}\" from {from}",
                        notification.channel(),
                        notification.payload()
                    ));
                }
                _ => {}
            }
        }
    }

    /// The sessions `session` waits on, by name, for the stepper: whoever holds the lock it
    /// wants, or whose transaction keeps its safe snapshot from being taken.
    async fn blockers(&self, session: usize) -> Result<Vec<String>, KitError> {
        let pid = self.conns[session].pid;
        let row = (self.control)
            .query_one(
                "SELECT pg_blocking_pids($1) || pg_safe_snapshot_blocking_pids($1)",
                &[&pid],
            )
            .await
            .map_err(KitError::observer("asking whom a step waits on"))?;
        let pids: Vec<i32> = row.get(0);
        Ok((self.conns.iter())
            .filter(|c| pids.contains(&c.pid))
            .map(|c| c.name.clone())
            .collect())
    }

    async fn is_blocked(&self, session: usize) -> Result<bool, KitError> {
        let pid = self.conns[session].pid;
        let row = (self.control.query_one(&self.blocked, &[&pid]).await)
            .map_err(KitError::observer("asking whether a step waits"))?;
        Ok(row.get(0))
    }

    fn print_results(&mut self, results: &[Returned]) {
        for result in results {
            self.print(&result.printed());
        }
    }
}

fn tester_failed(message: String) -> KitError {
    KitError::Play(message)
}
