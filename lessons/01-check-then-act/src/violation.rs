use std::fmt;

use kit::{KitError, Trace};

use crate::CHAPTER;

/// What a scenario caught, and how the event was delivered when it did. Its `Display` (and its
/// `Debug`, which is what a failing test prints) is the teaching message: what happened, why,
/// what to do next, and where the book explains it.
pub struct Violation {
    pub kind: ViolationKind,
    pub during: Delivery,
    /// The step-by-step record, when the scenario was a scripted interleaving.
    pub trace: Option<Trace>,
}

#[derive(Debug)]
pub enum ViolationKind {
    /// More than one delivery credited the account: the race itself.
    CreditedMoreThanOnce { credits: i64 },
    /// The key held (one credit), but deliveries that lost the race returned the unique
    /// violation as an error instead of reporting [`Outcome::AlreadyApplied`](crate::Outcome).
    DuplicateSurfacedAsError { errors: usize, example: String },
    /// No delivery credited the account.
    NeverCredited,
    /// A delivery failed with something other than a duplicate.
    HandlerFailed { error: String },
    /// The account was credited once, but the outcomes reported say otherwise.
    MisreportedOutcome { applied_reports: usize },
    /// The test could not run at all (no database, a migration that does not apply, …).
    Setup(Box<KitError>),
}

/// How the event reached the handler.
#[derive(Debug, Clone, Copy)]
pub enum Delivery {
    /// Delivered `times` times, each delivery after the previous one returned.
    OneAfterAnother { times: usize },
    /// Two workers, the second started while the first was inside its transaction.
    Scripted { workers: usize },
    /// `workers` workers released together by a barrier, in round `round` of `rounds`.
    Barrier {
        workers: usize,
        round: usize,
        rounds: usize,
    },
}

impl Violation {
    pub(crate) fn setup(during: Delivery) -> impl FnOnce(KitError) -> Violation {
        move |error| Violation {
            kind: ViolationKind::Setup(Box::new(error)),
            during,
            trace: None,
        }
    }
}

impl fmt::Display for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Delivery::OneAfterAnother { times } => {
                write!(f, "was delivered {times} times, one delivery after another")
            }
            Delivery::Scripted { workers } => write!(
                f,
                "reached {workers} workers, the second while the first was still inside its \
                 transaction (a scripted interleaving)"
            ),
            Delivery::Barrier {
                workers,
                round,
                rounds,
            } => write!(
                f,
                "reached {workers} workers at once (released together by a barrier, round \
                 {round} of {rounds})"
            ),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let during = &self.during;
        match &self.kind {
            ViolationKind::CreditedMoreThanOnce { credits } => write!(
                f,
                "the event {during}; the balance was credited {credits} times (expected 1).\n\
                 Each of those workers looked in processed_events while no delivery had \
                 committed its row yet, found nothing, and went on to credit. Looking and \
                 writing are separate statements, and the schema has no rule that refuses the \
                 second row.\n\
                 Next: let the database decide. Make processed_events.event_id a key \
                 (migrations/) and record the event inside the credit's transaction. See {CHAPTER}, \
                 \"The race\"."
            )?,
            ViolationKind::DuplicateSurfacedAsError { errors, example } => write!(
                f,
                "the event {during}; the balance was credited once (the key works), but \
                 {errors} delivery(ies) returned an error: {example}\n\
                 A duplicate delivery is not a failure. Its sender reads an error as \
                 \"not processed\": it retries, raises alerts, and may dead-letter an event that \
                 was applied long ago.\n\
                 Next: treat a unique violation on processed_events (SQLSTATE 23505) as \
                 Outcome::AlreadyApplied, and keep every other error an error. See {CHAPTER}, \
                 \"Losing cleanly\"."
            )?,
            ViolationKind::NeverCredited => write!(
                f,
                "the event {during}; the balance was never credited (expected once). Every \
                 delivery decided the event had already been applied. See {CHAPTER}, \"The fix\"."
            )?,
            ViolationKind::HandlerFailed { error } => write!(
                f,
                "the event {during}; a delivery failed: {error}\n\
                 Only a duplicate may be reported as AlreadyApplied; this is a different error, \
                 and the handler must not hide it, but here it means the handler could not do \
                 its job. Check the SQL and the schema (migrations/). See {CHAPTER}, \"The fix\"."
            )?,
            ViolationKind::MisreportedOutcome { applied_reports } => write!(
                f,
                "the event {during}; the balance was credited once, but {applied_reports} \
                 delivery(ies) reported Outcome::Applied (expected exactly 1). Report Applied \
                 only from the delivery whose transaction committed the credit. See {CHAPTER}, \
                 \"Losing cleanly\"."
            )?,
            ViolationKind::Setup(error) => write!(f, "the test could not run: {error}")?,
        }
        if let Some(trace) = &self.trace {
            write!(f, "\n\nWhat happened, step by step:\n{trace}")?;
        }
        Ok(())
    }
}

/// A failing test prints its error with `{:?}`; make that the teaching message, not a dump.
impl fmt::Debug for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Violation {}
