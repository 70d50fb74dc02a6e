use std::fmt;

use kit::{Calls, Common, Explain, Speaks, Topic, Words};

use crate::Handled;

pub use kit::{Delivery, FailureCause};

kit::violations!(chapter "13");

/// The most attempts the tests accept from one delivery. A retry needs a bound: the reason a
/// transaction keeps failing may last (a row everyone writes, a bug), and a loop without one
/// holds its worker, its connection and its event for as long as it lasts.
pub const MOST_ATTEMPTS: u64 = 10;

#[derive(Debug)]
pub enum ViolationKind {
    /// The database aborted the delivery's transaction (40001 or 40P01) and asked for it to be
    /// run again; the delivery ran it `attempts` time(s) and returned the error.
    NotRetried {
        event: Box<str>,
        error: Box<str>,
        at_commit: bool,
        attempts: u64,
    },
    /// A delivery kept running its transaction: `attempts`, past [`MOST_ATTEMPTS`].
    Unbounded { event: Box<str>, attempts: u64 },
    /// An error that no retry can change (not 40001, 40P01) made the delivery run its
    /// transaction again, `attempts` times in all.
    RetriedAPermanentError {
        event: Box<str>,
        error: Box<str>,
        attempts: u64,
    },
    /// In a run where nothing could conflict (one delivery after another), a delivery ran its
    /// transaction `attempts` times, so it retried an error that was not 40001 or 40P01; in
    /// the end it reported `reported`. `copy`: the event had been decided before it.
    RetriedWithoutAConflict {
        event: Box<str>,
        copy: bool,
        attempts: u64,
        reported: Box<str>,
    },
    /// A copy of an event decided before was returned as an error.
    DuplicateAsAnError { event: Box<str>, error: Box<str> },
    /// The deliveries of `event` reported `reported` attempts; the database saw `observed`.
    AttemptsMisreported {
        event: Box<str>,
        reported: u64,
        observed: u64,
    },
    /// The customer's cards together spent more than the shared limit.
    OverLimit {
        customer_id: Box<str>,
        spent: i64,
        limit: i64,
        summary: Box<str>,
    },
    /// The decisions the deliveries reported are not the ones the database recorded.
    Misreported {
        event: Box<str>,
        /// The decision the database holds (`approved`, `declined`), if any.
        recorded: Option<Box<str>>,
        reported: Box<[String]>,
    },
    /// The spending and the recorded decisions disagree.
    StateDisagrees { summary: Box<str> },
    /// What any lesson can catch: a failed or stuck delivery, a hidden failure, a test that
    /// could not run.
    Common(Common<Handled>),
}

impl Speaks for ViolationKind {
    const WORDS: Words = Words {
        calls: Calls::DELIVERIES,
        aggregate: "customer",
        retrier: "card network",
        lost: "the authorization is never decided, and the payment at the till times out",
        reporting_rule: "Only a copy of an event decided before means Duplicate; every \
                         other error stays an error.",
        second_process: "a second instance of the issuer's service",
    };

    fn see(topic: Topic) -> String {
        match topic {
            Topic::OneProcess | Topic::Neighbours => see("Why SERIALIZABLE needs a retry"),
            Topic::Reporting => see("What to retry, and what not"),
            Topic::Failed(FailureCause::Serialization | FailureCause::Deadlock) => {
                see("Retry the whole transaction")
            }
            Topic::Failed(_) => see("What to retry, and what not"),
        }
    }

    /// The kit's words for 40001 and 40P01 assume the lessons' guards at READ COMMITTED, where
    /// such an abort means the level was raised without a retry. Here SERIALIZABLE is the
    /// point, and the abort is the database doing its job.
    fn meaning(cause: FailureCause) -> Option<&'static str> {
        match cause {
            FailureCause::Serialization | FailureCause::Deadlock => Some(
                "Under SERIALIZABLE the database aborts a transaction whenever it cannot promise \
                 the result of some one-at-a-time order, and says so with 40001 (40P01 for a \
                 deadlock); nothing of the aborted transaction was kept. At this level such an \
                 abort is part of normal work, not a fault in the event.",
            ),
            FailureCause::TransactionAborted => Some(
                "After an error, PostgreSQL refuses every statement of the transaction (25P02) \
                 until it is rolled back: a statement cannot be run again inside the \
                 transaction that failed, and a new one sees a new snapshot only from its \
                 BEGIN.",
            ),
            _ => None,
        }
    }
}

impl Explain<Delivery> for ViolationKind {
    kit::common_kinds!(Handled);

    fn explain(&self, during: &Delivery, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.open(during, f)?;
        match self {
            ViolationKind::NotRetried {
                event,
                error,
                at_commit,
                attempts,
            } => {
                let when = if *at_commit {
                    "It came from COMMIT itself: every statement had succeeded, and the \
                     transaction still could not be committed.\n"
                } else {
                    ""
                };
                write!(
                    f,
                    "the delivery of {event} ran its transaction {attempts} time(s), and \
                     returned its error:\n  {error}\n{when}\
                     SERIALIZABLE keeps its promise by aborting one of two transactions whose \
                     reads and writes could not have happened one after the other, and nothing \
                     of the aborted one was kept. At this level such aborts are part of normal \
                     work, not a verdict on the authorization: a worker that hands each one \
                     back declines good payments at the till, or has the card network send \
                     them all again.\n{}",
                    see(if *at_commit {
                        "When COMMIT fails"
                    } else {
                        "Why SERIALIZABLE needs a retry"
                    })
                )
            }
            ViolationKind::Unbounded { event, attempts } => write!(
                f,
                "the delivery of {event} ran its transaction {attempts} times before it \
                 stopped (the test made every attempt fail with 40001 until the {attempts}th); \
                 the tests accept at most {MOST_ATTEMPTS}.\n\
                 A conflict that comes back attempt after attempt is a busy row or a bug, and \
                 neither goes away because the worker insists: without a bound the delivery \
                 holds its worker and its connection for as long as the cause lasts, and every \
                 attempt adds to the load that makes the next one fail.\n{}",
                see("A bound, a backoff, a count")
            ),
            ViolationKind::RetriedAPermanentError {
                event,
                error,
                attempts,
            } => write!(
                f,
                "the delivery of {event} ran its transaction {attempts} times, and returned \
                 its error:\n  {error}\n\
                 Only 40001 and 40P01 say \"the same transaction may succeed if run again\". \
                 This error is about the event itself: every attempt fails the same way, and \
                 the retries only delay the error and load the database.\n{}",
                see("What to retry, and what not")
            ),
            ViolationKind::RetriedWithoutAConflict {
                event,
                copy,
                attempts,
                reported,
            } => {
                let (which, why) = match copy {
                    true => (
                        "the second delivery",
                        format!(
                            "{event} had been decided by the delivery before it, so each attempt \
                             met the event's key (23505), and the deliveries ran one after \
                             another, so none could conflict with another transaction"
                        ),
                    ),
                    false => (
                        "the delivery",
                        "The deliveries ran one after another, so no attempt could conflict \
                         with another transaction"
                            .to_string(),
                    ),
                };
                write!(
                    f,
                    "{which} of {event} ran its transaction {attempts} times (the database saw \
                     each begin), then reported {reported}. {why}: it retried an error that \
                     was not 40001 or 40P01.\n\
                     Only those two say \"the same transaction may succeed if run again\". \
                     Any other error says the same thing at every attempt: retrying it only \
                     delays the answer and loads the database.\n{}",
                    see("What to retry, and what not")
                )
            }
            ViolationKind::DuplicateAsAnError { event, error } => write!(
                f,
                "a copy of {event}, which had been decided already, returned an error:\n  \
                 {error}\n\
                 The key refused the copy, as it should: a copy is not an error, and the card \
                 network reads an error as \"not processed\" and sends it again. Under \
                 SERIALIZABLE a 23505 can also mean \"retry\" (when the key was chosen after \
                 reading the table); an event's own id is not chosen that way.\n{}",
                see("What to retry, and what not")
            ),
            ViolationKind::AttemptsMisreported {
                event,
                reported,
                observed,
            } => write!(
                f,
                "the deliveries of {event} reported {reported} attempt(s), and the database saw \
                 {observed} transaction(s) begin the authorization.\n\
                 The attempt count is how the operators see contention (a customer whose \
                 authorizations keep conflicting) before it turns into errors.\n{}",
                see("A bound, a backoff, a count")
            ),
            ViolationKind::OverLimit {
                customer_id,
                spent,
                limit,
                summary,
            } => write!(
                f,
                "{customer_id}'s cards together spent {spent} cents against a limit of {limit} \
                 ({summary}).\n\
                 Each approval read a total that did not include the other's spending: two \
                 transactions each read the rows the other wrote, and each wrote a row the \
                 other did not read. That is write skew, and only SERIALIZABLE (or a lock on \
                 every row the rule reads) prevents it.\n{}",
                see("Ten anomalies, three levels")
            ),
            ViolationKind::Misreported {
                event,
                recorded: Some(recorded),
                reported,
            } => write!(
                f,
                "the database recorded {recorded:?} for {event}, and its deliveries reported \
                 {reported:?}.\n\
                 One delivery decides an event and says so; every other delivery of it \
                 changed nothing and must say Duplicate. A delivery that reports the decision \
                 of an attempt that was rolled back reports something that never happened.\n{}",
                see("Retry the whole transaction")
            ),
            ViolationKind::Misreported {
                event,
                recorded: None,
                reported,
            } => {
                let said = |outcome: &str| reported.iter().any(|r| r.starts_with(outcome));
                let why = if said("Duplicate") {
                    "Duplicate says that another delivery decided the event before, and none \
                     did: an event that was not decided (its card unknown, its retries spent) \
                     was reported as a duplicate"
                } else {
                    "The decision a delivery reported was never committed: either it is the \
                     decision of an attempt that was rolled back, or the delivery did not \
                     decide (its card unknown, its retries spent) and reported a decision anyway"
                };
                write!(
                    f,
                    "the database holds no decision for {event}, and its deliveries reported \
                     {reported:?}.\n\
                     {why}. The card network takes the report as the decision; an event not \
                     decided must reach it as an error, so that it knows the event was not \
                     decided.\n{}",
                    see("Retry the whole transaction")
                )
            }
            ViolationKind::StateDisagrees { summary } => write!(
                f,
                "the cards' spending and the recorded decisions tell different stories: \
                 {summary}.\n\
                 An approval is the decision and the spending together, in one transaction.\n{}",
                see("Retry the whole transaction")
            ),
            ViolationKind::Common(common) => common.explain::<Self>(f),
        }
    }
}
