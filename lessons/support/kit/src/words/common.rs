//! The violations every lesson can catch, whatever its domain, worded once. A lesson's
//! `ViolationKind` holds one as its `Common` variant; the lesson supplies only its nouns
//! ([`Words`]), where its chapter explains each ([`Topic`]), and, for a failure it expects, why
//! that failure is wrong there.

use std::fmt;

use crate::error::KitError;
use crate::words::failure::FailureCause;
use crate::words::fault::Fault;
use crate::words::sqlstate::describe_sqlx;
use crate::words::teaching::left_behind;

/// What went wrong that is not about the lesson's own rule.
#[derive(Debug)]
pub enum Common<O> {
    /// The test could not run at all (no database, a migration that does not apply, …).
    Setup(Box<KitError>),
    /// A worker neither finished nor waited on a database lock: it waited on something in the
    /// process, which other processes do not share.
    Stuck { detail: String },
    /// A call returned, and its session still held a lock or an open transaction.
    LeftBehind { detail: String },
    /// A call failed with an error a correct handler does not return, read by its SQLSTATE.
    HandlerFailed { error: String, cause: FailureCause },
    /// A call whose statement was cancelled, or whose session was terminated, reported
    /// `outcome` instead of the error, although its transaction rolled back.
    FailureHidden { outcome: O, fault: Fault },
    /// A call about one aggregate (`waiting`) was seen waiting on a lock while another session
    /// held another aggregate (`held`) and nothing of its own.
    WaitedOnANeighbour { waiting: String, held: String },
}

impl<O> Common<O> {
    /// A call's error, with what its SQLSTATE means.
    pub fn failed(error: &sqlx::Error) -> Self {
        Common::HandlerFailed {
            error: describe_sqlx(error),
            cause: FailureCause::of(error),
        }
    }

    /// The variant's name, as the wrong-fix catalogue expects it (`HandlerFailed`).
    pub fn name(&self) -> &'static str {
        match self {
            Common::Setup(_) => "Setup",
            Common::Stuck { .. } => "Stuck",
            Common::LeftBehind { .. } => "LeftBehind",
            Common::HandlerFailed { .. } => "HandlerFailed",
            Common::FailureHidden { .. } => "FailureHidden",
            Common::WaitedOnANeighbour { .. } => "WaitedOnANeighbour",
        }
    }
}

/// A lesson's nouns, for the messages of [`Common`]: each is one word or phrase, in the
/// chapter's own terms.
pub struct Words {
    /// What the calls are, and who makes them.
    pub calls: Calls,
    /// What one call is about, and what another call's locks must not hold up: "order".
    pub aggregate: &'static str,
    /// Who takes a reported outcome as final: "sender", "broker", "scheduler".
    pub retrier: &'static str,
    /// What a hidden failure costs in production, where nothing retries it: "the credit is
    /// lost".
    pub lost: &'static str,
    /// What the code under test may report instead of an error, and when: "Only a duplicate
    /// means \"already applied\"; every other error stays an error."
    pub reporting_rule: &'static str,
    /// A second process, which shares nothing one process holds: "a second instance of the
    /// payment step".
    pub second_process: &'static str,
}

/// The code under test, one call of it, and what makes the calls in the tests.
pub struct Calls {
    /// One call of the code under test: "delivery", "poll", "step", "prune".
    pub call: &'static str,
    /// What makes the calls in the tests: "worker", "consumer", "task".
    pub caller: &'static str,
    /// The code under test: "handler", "consumer", "prune".
    pub code: &'static str,
}

impl Calls {
    /// Workers delivering events to a handler, as most lessons' tests do.
    pub const DELIVERIES: Calls = Calls {
        call: "delivery",
        caller: "worker",
        code: "handler",
    };
    /// Clients sending requests to an API's handler (lessons 11 and 12).
    pub const REQUESTS: Calls = Calls {
        call: "request",
        caller: "client",
        code: "handler",
    };
}

/// What a [`Common`] message points the reader to; the lesson says which section of its
/// chapter explains each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// Why the guard must live in the database, not in one process ([`Common::Stuck`]).
    OneProcess,
    /// Why a failure must be reported as one ([`Common::FailureHidden`]).
    Reporting,
    /// A call that failed, by its cause ([`Common::HandlerFailed`]).
    Failed(FailureCause),
    /// Why one aggregate's lock must not hold up another's ([`Common::WaitedOnANeighbour`]).
    Neighbours,
}

/// What a lesson tells the kit about itself, for the messages of [`Common`].
pub trait Speaks {
    /// The lesson's nouns.
    const WORDS: Words;

    /// Where the book explains `topic`: `kit::see("10", "Other orders do not wait")`.
    fn see(topic: Topic) -> String;

    /// Why `cause` is wrong in this lesson, when the lesson words it itself (a deadlock between
    /// its own steps, say); `None` leaves it to the kit's general words.
    fn meaning(_cause: FailureCause) -> Option<&'static str> {
        None
    }
}

impl<O: fmt::Debug> Common<O> {
    /// The message after the lesson's opening ("{during}: "): what happened, why it is wrong,
    /// and where the book says so.
    pub fn explain<S: Speaks>(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = S::WORDS;
        let c = &w.calls;
        match self {
            Common::Setup(error) => write!(f, "the test could not run: {error}"),
            Common::Stuck { detail } => write!(
                f,
                "{detail}\n\
                 The test's observer sees only database locks. A {} waiting on anything else \
                 is waiting on something that lives in one process, such as a Mutex, and {} \
                 would not wait for it.\n{}",
                c.caller,
                w.second_process,
                S::see(Topic::OneProcess)
            ),
            Common::LeftBehind { detail } => write!(f, "{detail}\n{}", left_behind(c.call)),
            Common::HandlerFailed { error, cause } => {
                let general;
                let why = match S::meaning(*cause) {
                    Some(why) => why,
                    None => {
                        general = general_meaning(*cause, &w);
                        &general
                    }
                };
                write!(
                    f,
                    "a {} failed: {error}\n{why}\n{}",
                    c.call,
                    S::see(Topic::Failed(*cause))
                )
            }
            Common::FailureHidden { outcome, fault } => write!(
                f,
                "the first {call}'s {did} and its transaction rolled back, so nothing of it was \
                 kept, yet the {code} reported {outcome:?}. A {retrier} takes such a report as \
                 final and does not try again: only this test's scripted retry made up for it, \
                 and in production {lost}. {rule}\n{see}",
                call = c.call,
                did = fault.what_it_did(),
                code = c.code,
                retrier = w.retrier,
                lost = w.lost,
                rule = w.reporting_rule,
                see = S::see(Topic::Reporting)
            ),
            Common::WaitedOnANeighbour { waiting, held } => write!(
                f,
                "every {aggregate} ended right, but the {call} for {waiting} had to wait while \
                 another session held {held}: it was seen waiting on a lock when it started. \
                 Nothing that {waiting} needed was locked, so the {code} locks more than its \
                 own {aggregate} (a whole table, or one advisory key shared by every \
                 {aggregate}). That is still correct, but one slow {call} now holds up every \
                 {aggregate}'s.\n{see}",
                aggregate = w.aggregate,
                call = c.call,
                code = c.code,
                see = S::see(Topic::Neighbours)
            ),
        }
    }
}

/// Why an error of `cause` is wrong, in any lesson: the error itself, with its SQLSTATE and
/// what that means, is printed above this.
fn general_meaning(cause: FailureCause, w: &Words) -> String {
    let c = &w.calls;
    let (call, code) = (c.call, c.code);
    match cause {
        FailureCause::Deadlock => format!(
            "Two {call}s of this test deadlocked, and the database aborted one of them to break \
             the cycle. Two sessions that first lock the same row weakly (or in a different \
             order) and then both need a stronger lock wait for each other this way. A read that \
             decides a write must keep other deciders out until it commits."
        ),
        FailureCause::Serialization => format!(
            "The transaction runs at REPEATABLE READ or SERIALIZABLE, where the database aborts \
             one of two conflicting transactions instead of making it wait and read the other's \
             result. The guards of these lessons are built on read committed, PostgreSQL's \
             default; at a stricter level, every such abort is a failed {call} unless the \
             {code} retries it."
        ),
        FailureCause::LockNotAvailable => format!(
            "The {call} gave up instead of waiting for a lock another {call} held (NOWAIT or \
             lock_timeout). That {call} had not finished: nobody knew yet whether it would \
             commit, so giving up failed a {call} that waiting would have completed."
        ),
        FailureCause::TransactionAborted => "A statement ran in a transaction that an earlier \
             error had already aborted: after an error (a unique violation, say), PostgreSQL \
             refuses every statement of the same transaction until it rolls back, so catching \
             the first error and carrying on cannot work."
            .to_string(),
        FailureCause::Cancelled => format!(
            "A statement was cancelled while it waited (statement_timeout, or a cancel request). \
             Waiting for a concurrent {call} is how these guards decide correctly; a timeout \
             short enough to cut that wait fails {call}s that would have succeeded."
        ),
        FailureCause::PoolExhausted => format!(
            "The pool had no free connection. In these tests each {} has one connection of its \
             own, which its open transaction holds; a statement sent to the pool instead of the \
             transaction waits for a second connection that never comes.",
            c.caller
        ),
        FailureCause::NoRow => format!(
            "A query of the {code}'s that expected a row found none. The database refused \
             nothing (there is no SQLSTATE): the row was not there for that statement. Either \
             it was never written; or another transaction deleted it, or had not yet \
             committed it, between two of the {code}'s statements; or the statement passed it \
             over on purpose, as `SKIP LOCKED` passes over a row another transaction holds \
             locked, so that a busy row reads as a missing one."
        ),
        FailureCause::UnexpectedNull => format!(
            "The {code} read NULL from a column it reads as a value. The database refused \
             nothing (there is no SQLSTATE): the row was there, and that column was empty when \
             the {code} read it. Either the row was committed before that column was filled \
             (written in two steps, with a commit between them, so that another {call} read it \
             in between), or nothing ever fills it in that row."
        ),
        FailureCause::Other => format!(
            "Nothing this test did to the {call} caused this error: it came from the {code}'s \
             own statements, and a correct {code} completes this {call}. The SQLSTATE, when the \
             error has one, says what the database refused; an error without one came from the \
             {code}'s side (a query that expected a row and found none, say: the row was never \
             there, or another transaction deleted it between two of the {code}'s statements)."
        ),
    }
}

/// Inside a lesson's `impl Explain<Delivery> for ViolationKind`: its common kinds are its
/// `Common` variant, and its code under test reports `$outcome` (`kit::common_kinds!(Outcome);`).
#[macro_export]
macro_rules! common_kinds {
    ($outcome:ty) => {
        type Outcome = $outcome;

        fn common(common: $crate::Common<$outcome>) -> Self {
            Self::Common(common)
        }

        fn as_common(&self) -> Option<&$crate::Common<$outcome>> {
            match self {
                Self::Common(common) => Some(common),
                _ => None,
            }
        }
    };
}
