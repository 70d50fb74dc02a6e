use std::fmt;

use kit::{Calls, Common, Explain, FailureCause, Speaks, Topic, Words};

kit::violations!(chapter "01");

#[derive(Debug)]
pub enum ViolationKind {
    /// More than one delivery credited the account, and each recorded the event: the race
    /// itself, with nothing in the schema to stop it.
    CreditedMoreThanOnce { credits: i64 },
    /// More than one delivery credited the account, although the event was recorded once: the
    /// key refused the second record (or `ON CONFLICT DO NOTHING` skipped it), and the handler
    /// credited anyway.
    CreditedDespiteOneRecord { credits: i64 },
    /// The key held (one credit), but deliveries that lost the race returned the unique
    /// violation as an error instead of reporting [`Outcome::AlreadyApplied`](crate::Outcome).
    DuplicateSurfacedAsError { errors: usize, example: String },
    /// No delivery credited the account, and none claimed to.
    NeverCredited,
    /// Some delivery reported `Applied`, but no credit was committed.
    AppliedButNothingCommitted { applied_reports: usize },
    /// The account was credited, but the event was not recorded: the next redelivery credits it
    /// again.
    CreditedButNotRecorded,
    /// The balance moved by something other than whole credits of the event's amount.
    WrongAmount {
        balance_cents: i64,
        amount_cents: i64,
    },
    /// The account was credited once, but the outcomes reported say otherwise.
    MisreportedOutcome { applied_reports: usize },
    /// The second delivery reported the event as applied while the first delivery's transaction
    /// was still open, without waiting for it: had that transaction rolled back, the event would
    /// be lost.
    DecidedWithoutWaiting,
    /// A delivery for an account that does not exist reported success instead of an error.
    ErrorHidden { outcome: crate::Outcome },
    /// A delivery that credited nothing left the event recorded as applied.
    RecordedWithoutEffect,
    /// A duplicate's wait on the first delivery's uncommitted record ended in an error of its
    /// own (57014), not in a unique violation, and the handler reported an outcome: the first
    /// delivery then rolled back, so nobody applied the event.
    WaitEndedTakenForADuplicate { outcome: crate::Outcome },
    /// A different event (not a redelivery) was reported as handled already: one of `events`
    /// different events for one account.
    OtherEventTakenForADuplicate {
        outcome: crate::Outcome,
        events: usize,
    },
    /// `events` different events were delivered and reported applied, but the balance lacks a
    /// credit.
    CreditLost {
        balance_cents: i64,
        expected_cents: i64,
        events: usize,
    },
    /// What any lesson can catch: a failed or stuck delivery, a hidden failure, a wait on
    /// another account, a test that could not run.
    Common(Common<crate::Outcome>),
}

/// How the event reached the handler.
#[derive(Debug, Clone, Copy)]
pub enum Delivery {
    /// A scripted scenario's story, in one sentence, from its spec (`story "…"`).
    Story(&'static str),
    /// Workers released together, in one round of a spec's `barrier` (`specs/released.spec`).
    Released(kit::Round),
}

impl From<&'static str> for Delivery {
    fn from(story: &'static str) -> Self {
        Delivery::Story(story)
    }
}

impl From<kit::Round> for Delivery {
    fn from(round: kit::Round) -> Self {
        Delivery::Released(round)
    }
}

impl fmt::Display for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Delivery::Story(story) => f.write_str(story),
            Delivery::Released(round) => round.fmt(f),
        }
    }
}

impl Speaks for ViolationKind {
    const WORDS: Words = Words {
        calls: Calls::DELIVERIES,
        aggregate: "account",
        retrier: "sender",
        lost: "the credit is lost",
        reporting_rule: "Only a duplicate means \"already applied\"; every other error \
                         stays an error.",
        second_process: "a second process (another replica, a restarted consumer)",
    };

    fn see(topic: Topic) -> String {
        match topic {
            Topic::OneProcess => kit::see("01", "Why the if-statement cannot work"),
            Topic::Neighbours => kit::see("01", "What the second insert does"),
            Topic::Failed(FailureCause::PoolExhausted) => {
                kit::see("01", "The record and the effect commit together")
            }
            Topic::Failed(_) | Topic::Reporting => kit::see("01", "Losing cleanly"),
        }
    }

    fn meaning(cause: FailureCause) -> Option<&'static str> {
        (cause == FailureCause::Other).then_some(
            "This error is not one the scenario causes: a duplicate is not a failure, and the \
             errors of deliveries the test itself cancels or kills are not counted. It came \
             from the handler's own statements, and its sender now retries (or dead-letters) \
             an event that a correct handler applies.",
        )
    }
}

impl Explain<Delivery> for ViolationKind {
    kit::common_kinds!(crate::Outcome);

    fn explain(&self, during: &Delivery, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViolationKind::CreditedMoreThanOnce { credits } => write!(
                f,
                "the event {during}; the balance was credited {credits} times (expected 1), and \
                 each of those deliveries recorded the event.\n\
                 Each of them looked in processed_events while no delivery had committed its \
                 row yet, found nothing, and went on to credit. Looking and writing are \
                 separate statements, and nothing in the schema refuses a second row for the \
                 same event.\n{}",
                see("The race")
            ),
            ViolationKind::CreditedDespiteOneRecord { credits } => write!(
                f,
                "the event {during}; the balance was credited {credits} times (expected 1), \
                 although processed_events holds the event only once.\n\
                 Something refused every record after the first (a key, or ON CONFLICT \
                 skipping it), but the handler credited anyway, so the refusal decided \
                 nothing.\n{}",
                see("What a unique key decides")
            ),
            ViolationKind::DuplicateSurfacedAsError { errors, example } => write!(
                f,
                "the event {during}; the balance was credited once (the key works), but \
                 {errors} delivery(ies) returned an error: {example}\n\
                 A duplicate delivery is not a failure. Its sender reads an error as \
                 \"not processed\": it retries, raises alerts, and may dead-letter an event that \
                 was applied long ago.\n{}",
                see("Losing cleanly")
            ),
            ViolationKind::NeverCredited => write!(
                f,
                "the event {during}; the balance was never credited (expected once), and no \
                 delivery reported Applied: every delivery decided the event had already been \
                 applied.\n{}",
                see("What a unique key decides")
            ),
            ViolationKind::AppliedButNothingCommitted { applied_reports } => write!(
                f,
                "the event {during}; {applied_reports} delivery(ies) reported Applied, but the \
                 balance never moved: nothing those deliveries did was committed (a \
                 transaction dropped without commit() rolls back).\n{}",
                see("The record and the effect commit together")
            ),
            ViolationKind::CreditedButNotRecorded => write!(
                f,
                "the event {during}; the account was credited once, but processed_events has no \
                 row for the event, so its next redelivery will credit it again.\n{}",
                see("The record and the effect commit together")
            ),
            ViolationKind::WrongAmount {
                balance_cents,
                amount_cents,
            } => write!(
                f,
                "the event {during}; the account holds {balance_cents} cents, which is not a \
                 whole number of the event's {amount_cents}-cent credits: something other than \
                 the event's amount was credited.\n{}",
                see("The problem")
            ),
            ViolationKind::MisreportedOutcome { applied_reports } => write!(
                f,
                "the event {during}; the balance was credited once, but {applied_reports} \
                 delivery(ies) reported Outcome::Applied (expected exactly 1). Applied means \
                 \"this delivery's transaction committed the credit\", which only one delivery \
                 can say.\n{}",
                see("Losing cleanly")
            ),
            ViolationKind::DecidedWithoutWaiting => write!(
                f,
                "the event {during}; the second worker reported it as already applied while the \
                 first worker's transaction was still open, without waiting for it. The first \
                 worker might still roll back (a crash, a lost connection), and then nobody \
                 applies the event: it is lost. Until the transaction that records the event \
                 and credits the account has ended, nobody knows what it will commit.\n{}",
                see("The record and the effect commit together")
            ),
            ViolationKind::ErrorHidden { outcome } => write!(
                f,
                "the event {during}, and the handler reported {outcome:?}. Nothing was \
                 credited, so the sender must hear about the failure: only a duplicate means \
                 \"already applied\"; every other error stays an error.\n{}",
                see("Losing cleanly")
            ),
            ViolationKind::RecordedWithoutEffect => write!(
                f,
                "the event {during}; nothing was credited, yet processed_events records the \
                 event as applied, so every redelivery will skip it: the event is lost. The \
                 record committed although the credit failed.\n{}",
                see("The record and the effect commit together")
            ),
            ViolationKind::WaitEndedTakenForADuplicate { outcome } => write!(
                f,
                "the event {during}. Worker-2's wait for worker-1's uncommitted record ended in \
                 an error (SQLSTATE 57014, its statement cancelled), not in a unique violation \
                 (23505), yet the handler reported {outcome:?}. Worker-1 then rolled back: \
                 nothing was recorded, nothing credited. A sender told {outcome:?} acknowledges \
                 the event and never delivers it again, so the credit is lost; only this \
                 test's scripted third delivery applied it. A wait that ends in an error \
                 decides nothing: until worker-1's transaction ends, nobody knows whether the \
                 event will be applied.\n{}",
                see("Losing cleanly")
            ),
            ViolationKind::OtherEventTakenForADuplicate { outcome, events } => write!(
                f,
                "the event {during}; a delivery reported {outcome:?}, but the {} events have \
                 different ids: none is a redelivery of another, and {} must be credited. \
                 Whatever decided \"already applied\" compared something the events share, not \
                 the event id.\n{}",
                number(*events),
                every(*events),
                see("What a unique key decides")
            ),
            ViolationKind::CreditLost {
                balance_cents,
                expected_cents,
                events,
            } => write!(
                f,
                "the event {during}; the account holds {balance_cents} cents, but the {} \
                 credits add up to {expected_cents}, and {} deliveries reported Applied: a \
                 credit overwrote another instead of adding to it, or was never recorded.\n{}",
                number(*events),
                every(*events),
                see("What the second insert does")
            ),
            ViolationKind::Common(common) => {
                if !matches!(common, Common::Setup(_)) {
                    write!(f, "the event {during}; ")?;
                }
                common.explain::<Self>(f)
            }
        }
    }
}

/// How many different events a message counts: "two" reads better than "2" in a sentence.
fn number(events: usize) -> String {
    match events {
        2 => "two".into(),
        n => n.to_string(),
    }
}

/// All of `events` events or their deliveries: "both", or "all 3".
fn every(events: usize) -> String {
    match events {
        2 => "both".into(),
        n => format!("all {n}"),
    }
}
