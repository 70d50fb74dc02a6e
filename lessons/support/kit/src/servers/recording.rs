//! One connection of a session, as its relay reads the wire: what it prepared and bound, which
//! of its statements the server has yet to answer, and which answer belongs to which.
//!
//! The server answers in the order it was asked. Each simple query ('Q') ends with one "ready
//! for query" ('Z'), after a tag per statement in it (or an error); each run of the extended
//! protocol ends with a Sync ('S'), and its Executes are answered in order, until an error,
//! after which the server skips to the Sync. A client may send its next request before it has
//! read the last one's 'Z' (sqlx sends a dropped transaction's ROLLBACK so), so each 'Z' is
//! matched to the oldest request not yet ended, never to the latest statement.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use crate::servers::wire::{Message, shown_parameter};
use crate::words::statements::{Statements, Transaction};

pub(crate) struct Connection {
    statements: Arc<Statements>,
    session: String,
    /// Prepared statements by name: their text and declared parameter types.
    prepared: HashMap<String, (String, Vec<u32>)>,
    /// Bound portals by name: their statement's name, its text and shown parameters.
    portals: HashMap<String, Portal>,
    /// The statement last sent to be prepared, by name, and its place in the trace: its
    /// Execute takes that place ([`Statements::preparing`]).
    preparing: Option<(String, usize)>,
    /// Requests sent and not yet ended by a 'Z', oldest first.
    requests: VecDeque<Request>,
    /// The server ended the connection (its backend was terminated): whatever the client sends
    /// after that (a pool's ROLLBACK as it drops the transaction) never reaches a server.
    over: bool,
}

struct Portal {
    statement: String,
    sql: String,
    shown: Vec<String>,
}

/// What one 'Z' ends: a simple query, or a run of Executes up to a Sync.
struct Request {
    /// Each statement's place in the trace, in order; for a simple query, one.
    statements: Vec<usize>,
    /// How many of them the server has answered.
    answered: usize,
    simple: bool,
    /// A run of the extended protocol whose Sync is not sent yet: Executes join it.
    open: bool,
}

impl Connection {
    pub(crate) fn new(statements: Arc<Statements>, session: &str) -> Connection {
        Connection {
            statements,
            session: session.to_string(),
            prepared: HashMap::new(),
            portals: HashMap::new(),
            preparing: None,
            requests: VecDeque::new(),
            over: false,
        }
    }

    /// A message the session sent the server.
    pub(crate) fn sent(&mut self, message: &Message) {
        if self.over {
            return;
        }
        match message.kind() {
            Some(b'Q') => {
                let at =
                    (self.statements).started(&self.session, message.first_string(), Vec::new());
                self.requests.push_back(Request {
                    statements: vec![at],
                    answered: 0,
                    simple: true,
                    open: false,
                });
            }
            Some(b'P') => {
                if let Some(parse) = message.parse() {
                    let at = self.statements.preparing(&self.session, &parse.sql);
                    self.preparing = Some((parse.name.clone(), at));
                    self.prepared.insert(parse.name, (parse.sql, parse.types));
                }
            }
            Some(b'B') => self.bound(message),
            Some(b'E') => {
                let Some(portal) = message.execute().and_then(|p| self.portals.get(p)) else {
                    return;
                };
                let at = match self.preparing.take() {
                    Some((name, at)) if name == portal.statement => {
                        self.statements.executing(at, portal.shown.clone());
                        at
                    }
                    _ => {
                        (self.statements).started(&self.session, &portal.sql, portal.shown.clone())
                    }
                };
                match self.requests.back_mut().filter(|r| r.open) {
                    Some(run) => run.statements.push(at),
                    None => self.requests.push_back(Request {
                        statements: vec![at],
                        answered: 0,
                        simple: false,
                        open: true,
                    }),
                }
            }
            Some(b'S') => match self.requests.back_mut().filter(|r| r.open) {
                Some(run) => run.open = false,
                // A Sync with no Execute: sqlx's ping, or a prepare alone, whose error (the
                // statement does not parse, its session was killed as it waited to prepare)
                // is its statement's answer.
                None => self.requests.push_back(Request {
                    statements: (self.preparing.as_ref())
                        .map(|&(_, at)| at)
                        .into_iter()
                        .collect(),
                    answered: 0,
                    simple: false,
                    open: false,
                }),
            },
            _ => {}
        }
    }

    /// A Bind: the portal's statement and parameters, as the trace shows them.
    fn bound(&mut self, message: &Message) {
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
        let portal = Portal {
            statement: bind.statement,
            sql: sql.clone(),
            shown,
        };
        self.portals.insert(bind.portal, portal);
    }

    /// A message the server sent the session.
    pub(crate) fn received(&mut self, message: &Message) {
        match message.kind() {
            Some(b'C') => {
                let Some(request) = self.requests.front_mut() else {
                    return;
                };
                let Some(&at) = request.statements.get(request.answered) else {
                    return;
                };
                self.statements.completed(at, message.first_string());
                // A simple query's statements share one place: its tags gather there.
                if !request.simple {
                    request.answered += 1;
                }
            }
            Some(b'E') => {
                let sqlstate = message.sqlstate().unwrap_or_default();
                // Class 57P: the server shut the connection (terminated, shutting down).
                self.over |= sqlstate.starts_with("57P");
                let Some(request) = self.requests.front_mut() else {
                    return;
                };
                if let Some(&at) = request.statements.get(request.answered) {
                    self.statements.failed(at, &sqlstate);
                }
                // The server skips the rest of the run, up to its Sync: none of it ran.
                request.statements.truncate(request.answered + 1);
                request.answered = request.statements.len();
            }
            Some(b'Z') => {
                let then = match message.ready_for_query() {
                    Some(b'T') => Transaction::Open,
                    Some(b'E') => Transaction::Failed,
                    _ => Transaction::Idle,
                };
                if let Some(request) = self.requests.pop_front()
                    && let Some(&last) = request.statements.last()
                {
                    self.statements.ready(last, then);
                }
            }
            _ => {}
        }
    }
}
