//! A statement-level trace: every statement the server ran for each session of a scenario, in
//! the order the sessions sent them, with the parameters it was given, the session it waited on
//! (if it waited), what it returned (its command tag, or the SQLSTATE of its error) and where
//! its transaction stood afterwards.
//!
//! It is recorded from outside the handler, so a student's own handler is traced without their
//! help: a relay between the handler's pool and the server reads the wire (`servers::recording`), and
//! the interleaving, which already watches for waits through `pg_blocking_pids`, says which
//! statement waited on whom ([`Statements::waiting`]). This is the record alone, plain data on
//! the words' floor: when a scenario records it is the engine's (`engine::statements`).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;

/// The statement the kit itself sends on a worker's connection to learn its backend's pid
/// before the handler runs: not the handler's, so not traced.
pub(crate) const THE_KITS_OWN: &str = "SELECT pg_backend_pid()";

/// The statements of one scenario, as they were sent.
#[derive(Debug, Default)]
pub struct Statements {
    sent: Mutex<Vec<Statement>>,
    /// How many steps of its permutation the script had started when the latest statement was
    /// sent: the script's own clock, which reads the same every run.
    segment: std::sync::atomic::AtomicUsize,
    /// The session each step of the permutation ran in or acted on, in order.
    leaders: Mutex<Vec<String>>,
}

/// One statement the server ran for one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Statement {
    pub session: String,
    /// As the session sent it: a simple query's text may hold several statements.
    pub sql: String,
    /// Each parameter, as the trace shows it (`'evt-1'`, `100`, `NULL`).
    pub parameters: Vec<String>,
    /// The sessions it was seen waiting on, in the order seen.
    pub waited_on: Vec<String>,
    /// What the server answered: its command tags, or the SQLSTATE of its error. `None`: no
    /// answer came (the connection ended first).
    pub answer: Option<Answer>,
    /// The session's transaction once the server answered: idle, open, or failed.
    pub then: Option<Transaction>,
    /// The permutation's steps started before it was sent ([`Statements::segment`]): what
    /// lines up the statements of two handlers played through the same script, side by side.
    #[serde(rename = "script_step")]
    pub segment: usize,
    /// Sent as a Parse, not executed yet ([`Statements::preparing`]).
    #[serde(skip)]
    pub preparing: bool,
}

/// What the server answered a statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Answer {
    /// Its command tags (`INSERT 0 1`, `COMMIT`), one per statement of a simple query.
    Done(Vec<String>),
    /// The SQLSTATE of its error.
    Failed(String),
}

/// Where a session's transaction stands, as the server's "ready for query" says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transaction {
    Idle,
    Open,
    Failed,
}

impl Statements {
    pub fn new() -> Arc<Statements> {
        Arc::default()
    }

    fn sent(&self) -> MutexGuard<'_, Vec<Statement>> {
        // A panic elsewhere leaves the list as it was: still worth reading.
        self.sent.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The script starts a step of its permutation, in `session` (or acting on it): statements
    /// sent from now on come after it.
    pub(crate) fn next_step(&self, session: &str) {
        let mut leaders = self.leaders.lock().unwrap_or_else(|e| e.into_inner());
        leaders.push(session.to_string());
        self.segment
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// Every statement so far, in an order that reads the same every run: by the script's step
    /// they followed; within one, the step's own session first (a holder's `COMMIT` comes
    /// before the statements of the workers it let go), then the others by name (sessions that
    /// run at once, between two steps of the script, have no order of their own); each
    /// session's in the order it sent them.
    pub fn all(&self) -> Vec<Statement> {
        let leaders = self
            .leaders
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let led = |s: &Statement| {
            let leader = s.segment.checked_sub(1).and_then(|step| leaders.get(step));
            leader != Some(&s.session)
        };
        // A statement only prepared, which neither waited nor failed, is no step of the story.
        let shown = |s: &Statement| !s.preparing || s.answer.is_some() || !s.waited_on.is_empty();
        let mut all: Vec<Statement> = self.sent().iter().filter(|s| shown(s)).cloned().collect();
        all.sort_by(|a, b| (a.segment, led(a), &a.session).cmp(&(b.segment, led(b), &b.session)));
        all
    }

    /// Every statement so far, as JSON: `{"statements": [{"session": …, "sql": …,
    /// "parameters": […], "waited_on": […], "answer": {"done": [tags]} | {"failed": sqlstate} |
    /// null, "then": "idle" | "open" | "failed" | null, "script_step": n}, …]}`.
    pub fn to_json(&self) -> String {
        let all = serde_json::json!({ "statements": self.all() });
        serde_json::to_string_pretty(&all).unwrap_or_default()
    }

    /// `session` sent `sql` with `parameters`: its place in the trace.
    pub fn started(&self, session: &str, sql: &str, parameters: Vec<String>) -> usize {
        let mut sent = self.sent();
        if sql == THE_KITS_OWN {
            return usize::MAX;
        }
        let segment = self.segment.load(std::sync::atomic::Ordering::SeqCst);
        sent.push(Statement {
            segment,
            session: session.to_string(),
            // On one line, as the coarse trace shows a statement: a query written over several
            // lines in the handler's source reads the same.
            sql: sql.split_whitespace().collect::<Vec<_>>().join(" "),
            parameters,
            waited_on: Vec::new(),
            answer: None,
            then: None,
            preparing: false,
        });
        sent.len() - 1
    }

    /// `session` sent `sql` to be prepared (a Parse): its place in the trace, if it is run or
    /// if preparing it waits or fails. Preparing takes the locks its tables need (an `INSERT`
    /// prepared while another session holds `LOCK TABLE … IN SHARE MODE` waits right there),
    /// and a statement the server cannot parse fails there: steps a trace must show.
    pub fn preparing(&self, session: &str, sql: &str) -> usize {
        let at = self.started(session, sql, Vec::new());
        if let Some(statement) = self.sent().get_mut(at) {
            statement.preparing = true;
        }
        at
    }

    /// The statement prepared at `at` is executed with `parameters`: the same step, where it
    /// was sent, with whatever it waited on while it was prepared.
    pub fn executing(&self, at: usize, parameters: Vec<String>) {
        if let Some(statement) = self.sent().get_mut(at) {
            statement.preparing = false;
            statement.parameters = parameters;
        }
    }

    /// The server answered statement `at`: its tag, added to any before it.
    pub fn completed(&self, at: usize, tag: &str) {
        if let Some(statement) = self.sent().get_mut(at) {
            match &mut statement.answer {
                Some(Answer::Done(tags)) => tags.push(tag.to_string()),
                _ => statement.answer = Some(Answer::Done(vec![tag.to_string()])),
            }
        }
    }

    /// The server raised `sqlstate` for statement `at`.
    pub fn failed(&self, at: usize, sqlstate: &str) {
        if let Some(statement) = self.sent().get_mut(at) {
            statement.answer = Some(Answer::Failed(sqlstate.to_string()));
        }
    }

    /// Once it answered statement `at`, the server was ready for the next, with the session's
    /// transaction `then`.
    pub fn ready(&self, at: usize, then: Transaction) {
        if let Some(statement) = self.sent().get_mut(at) {
            statement.then = Some(then);
        }
    }

    /// The server answered `session`'s latest unanswered statement (a scripted session's, whose
    /// answer the kit reads itself rather than off the wire).
    pub fn answered(&self, session: &str, answer: Answer) {
        let mut sent = self.sent();
        let latest = (sent.iter_mut().rev()).find(|s| s.session == session && s.answer.is_none());
        if let Some(statement) = latest {
            statement.answer = Some(answer);
        }
    }

    /// `session` is seen waiting on the sessions `on`: its latest unanswered statement is the
    /// one that waits.
    pub fn waiting(&self, session: &str, on: &[String]) {
        let mut sent = self.sent();
        let waiting = (sent.iter_mut().rev()).find(|s| s.session == session && s.answer.is_none());
        if let Some(statement) = waiting {
            for holder in on {
                if !statement.waited_on.contains(holder) {
                    statement.waited_on.push(holder.clone());
                }
            }
        }
    }
}

/// One line per statement: `3 worker-2: INSERT … [$1 = 'evt-1'] <waited on worker-1> → error
/// 23505`, and where a transaction opened, ended or failed.
impl fmt::Display for Statements {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut open: HashMap<String, Transaction> = HashMap::new();
        for (n, s) in self.all().iter().enumerate() {
            write!(f, "{:>3} {}: {}", n + 1, s.session, s.sql)?;
            if !s.parameters.is_empty() {
                let shown: Vec<String> = (s.parameters.iter().enumerate())
                    .map(|(i, p)| format!("${} = {p}", i + 1))
                    .collect();
                write!(f, " [{}]", shown.join(", "))?;
            }
            if !s.waited_on.is_empty() {
                write!(f, " <waited on {}>", s.waited_on.join(", "))?;
            }
            match &s.answer {
                Some(Answer::Done(tags)) => write!(f, " → {}", tags.join(", "))?,
                Some(Answer::Failed(sqlstate)) => write!(f, " → error {sqlstate}")?,
                None => write!(f, " → no answer")?,
            }
            let before = open
                .get(s.session.as_str())
                .copied()
                .unwrap_or(Transaction::Idle);
            if let Some(then) = s.then.filter(|then| *then != before) {
                f.write_str(match then {
                    Transaction::Open => " (transaction open)",
                    Transaction::Idle => " (transaction over)",
                    Transaction::Failed => " (transaction failed)",
                })?;
                open.insert(s.session.clone(), then);
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
