//! A statement-level trace: every statement the server ran for each session of a scenario, in
//! the order the sessions sent them, with the parameters it was given, the session it waited on
//! (if it waited), what it returned (its command tag, or the SQLSTATE of its error) and where
//! its transaction stood afterwards.
//!
//! It is recorded from outside the handler, so a student's own handler is traced without their
//! help: a relay between the handler's pool and the server reads the wire ([`Connection`]), and
//! the interleaving, which already watches for waits through `pg_blocking_pids`, says which
//! statement waited on whom ([`Statements::waiting`]).

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;

use crate::servers::wire::{Message, shown_parameter};

/// The statement the kit itself sends on a worker's connection to learn its backend's pid
/// before the handler runs: not the handler's, so not traced.
pub(crate) const THE_KITS_OWN: &str = "SELECT pg_backend_pid()";

/// The statements of one scenario, as they were sent.
#[derive(Debug, Default)]
pub struct Statements {
    sent: Mutex<Vec<Statement>>,
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

    /// Every statement so far, in the order sent.
    pub fn all(&self) -> Vec<Statement> {
        self.sent().clone()
    }

    /// Every statement so far, as JSON: `{"statements": [{"session": …, "sql": …,
    /// "parameters": […], "waited_on": […], "answer": {"done": [tags]} | {"failed": sqlstate} |
    /// null, "then": "idle" | "open" | "failed" | null}, …]}`.
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
        sent.push(Statement {
            session: session.to_string(),
            sql: sql.to_string(),
            parameters,
            waited_on: Vec::new(),
            answer: None,
            then: None,
        });
        sent.len() - 1
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
        let mut open: HashMap<&str, Transaction> = HashMap::new();
        let sent = self.sent();
        for (n, s) in sent.iter().enumerate() {
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
                open.insert(&s.session, then);
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// One connection of a session, as its relay reads it: what it prepared and bound, and which
/// of its statements the server has yet to answer, in order.
pub(crate) struct Connection {
    statements: Arc<Statements>,
    session: String,
    /// Prepared statements by name: their text and declared parameter types.
    prepared: HashMap<String, (String, Vec<u32>)>,
    /// Bound portals by name: their text and shown parameters.
    portals: HashMap<String, (String, Vec<String>)>,
    /// Sent and not yet answered: each one's place in the trace, and whether it was a simple
    /// query (answered with a tag per statement, and done only when the server is ready).
    unanswered: VecDeque<(usize, bool)>,
    /// The latest statement answered: the one a "ready for query" reports on.
    last: Option<usize>,
}

impl Connection {
    pub(crate) fn new(statements: Arc<Statements>, session: &str) -> Connection {
        Connection {
            statements,
            session: session.to_string(),
            prepared: HashMap::new(),
            portals: HashMap::new(),
            unanswered: VecDeque::new(),
            last: None,
        }
    }

    /// A message the session sent the server.
    pub(crate) fn sent(&mut self, message: &Message) {
        match message.kind() {
            Some(b'Q') => {
                let at = self
                    .statements
                    .started(&self.session, message.first_string(), Vec::new());
                self.unanswered.push_back((at, true));
            }
            Some(b'P') => {
                if let Some(parse) = message.parse() {
                    self.prepared.insert(parse.name, (parse.sql, parse.types));
                }
            }
            Some(b'B') => {
                let Some(bind) = message.bind() else { return };
                let Some((sql, types)) = self.prepared.get(&bind.statement) else {
                    return;
                };
                let shown = (bind.values.iter().enumerate())
                    .map(|(i, (binary, value))| {
                        let oid = types.get(i).copied().unwrap_or(0);
                        shown_parameter(oid, *binary, value.as_deref())
                    })
                    .collect();
                self.portals.insert(bind.portal, (sql.clone(), shown));
            }
            Some(b'E') => {
                let Some((sql, shown)) = message.execute().and_then(|p| self.portals.get(p)) else {
                    return;
                };
                let at = self.statements.started(&self.session, sql, shown.clone());
                self.unanswered.push_back((at, false));
            }
            _ => {}
        }
    }

    /// A message the server sent the session.
    pub(crate) fn received(&mut self, message: &Message) {
        match message.kind() {
            Some(b'C') => {
                let Some(&(at, simple)) = self.unanswered.front() else {
                    return;
                };
                self.statements.completed(at, message.first_string());
                if !simple {
                    self.unanswered.pop_front();
                    self.last = Some(at);
                }
            }
            Some(b'E') => {
                let Some(&(at, simple)) = self.unanswered.front() else {
                    return;
                };
                self.statements
                    .failed(at, &message.sqlstate().unwrap_or_default());
                if !simple {
                    self.unanswered.pop_front();
                    self.last = Some(at);
                }
            }
            Some(b'Z') => {
                let then = match message.ready_for_query() {
                    Some(b'T') => Transaction::Open,
                    Some(b'E') => Transaction::Failed,
                    _ => Transaction::Idle,
                };
                // A simple query is done now; an extended one after an error was skipped by the
                // server up to the sync: neither ran, nor will.
                if let Some((at, true)) = self.unanswered.front().copied() {
                    self.unanswered.pop_front();
                    self.last = Some(at);
                }
                self.unanswered.clear();
                if let Some(at) = self.last {
                    self.statements.ready(at, then);
                }
            }
            _ => {}
        }
    }
}

/// Where `WORKBOOK_STATEMENTS` asks every scripted scenario of this process to write its
/// statements (`cargo workbook trace` sets it): a folder, one file pair per scenario, named by
/// the test that played it.
pub(crate) const WRITE_TO: &str = "WORKBOOK_STATEMENTS";

/// Writes `statements` into the folder `WORKBOOK_STATEMENTS` names, as `TEST.json` and
/// `TEST.txt` (`TEST-2…` for a test's later scenarios). The test is the thread's name, which is
/// what libtest names a test's thread. A file that cannot be written is said on stderr: the
/// test itself is not at fault.
pub(crate) fn write_out(statements: &Statements) {
    let Some(folder) = std::env::var_os(WRITE_TO) else {
        return;
    };
    let folder = std::path::PathBuf::from(folder);
    let test = std::thread::current()
        .name()
        .unwrap_or("scenario")
        .replace("::", "-");
    let written = std::fs::create_dir_all(&folder).and_then(|()| {
        let mut n = 1;
        let stem = loop {
            let stem = match n {
                1 => test.clone(),
                n => format!("{test}-{n}"),
            };
            if !folder.join(format!("{stem}.json")).exists() {
                break stem;
            }
            n += 1;
        };
        std::fs::write(folder.join(format!("{stem}.json")), statements.to_json())?;
        std::fs::write(folder.join(format!("{stem}.txt")), statements.to_string())
    });
    if let Err(error) = written {
        eprintln!(
            "workbook: could not write the statements to {}: {error}",
            folder.display()
        );
    }
}
