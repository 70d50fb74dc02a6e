use std::fmt;

use kit::{Calls, Common, Explain, Speaks, Topic, Words, see};

use crate::Outcome;

pub use kit::{Delivery, FailureCause};

/// What a scenario caught, and how the events were delivered when it did. Its `Display` (and
/// its `Debug`, which is what a failing test prints) is the teaching message: what happened,
/// why it is wrong, and where the book explains it.
pub type Violation = kit::Violation<ViolationKind, Delivery>;

#[derive(Debug)]
pub enum ViolationKind {
    /// The order was announced more than once: two deliveries both moved it and both wrote an
    /// outbox row. `announcements` lists them as (type, caused by).
    ResolvedTwice {
        announcements: Vec<(String, String)>,
        status: String,
    },
    /// The event is recorded as handled, but the order never changed: every redelivery will be
    /// skipped, so it can never be applied.
    /// `gave_up`: a delivery of it reported OrderAlreadyResolved while the order was pending.
    LostEvent { event_id: String, gave_up: bool },
    /// Nothing was applied, and nothing was recorded either; `handled_reports` deliveries said
    /// the event had been handled already.
    NeverApplied { handled_reports: usize },
    /// The order reached a terminal status, and no outbox row tells anyone.
    ResolvedSilently { status: String },
    /// An outbox row announces a status the order does not have.
    AnnouncedButNotSo { announced: String, status: String },
    /// The order was resolved by an event that did not reach it first.
    ResolvedByWrongEvent { caused_by: String, expected: String },
    /// The instalments paid do not add up to the payments delivered: one was counted twice (or
    /// not at all).
    /// `gave_up`: a delivery reported OrderAlreadyResolved while the order was pending.
    PaidWrong {
        paid_cents: i64,
        expected_cents: i64,
        status: String,
        gave_up: bool,
    },
    /// The effect happened once, but deliveries that lost the race returned an error.
    DuplicateSurfacedAsError { errors: usize, example: String },
    /// A delivered event is not in processed_events.
    NotRecorded { event_id: String },
    /// The order is right, but what the deliveries reported is not. `about_resolved` when the
    /// report in question is (or should have been) `OrderAlreadyResolved`.
    MisreportedOutcome {
        detail: String,
        about_resolved: bool,
    },
    /// The second delivery gave up on the event while the first one's transaction was still
    /// open: had that transaction rolled back, nobody would apply the event.
    DecidedWithoutWaiting { outcome: Outcome },
    /// An event for an order that does not exist was reported as handled.
    ErrorHidden { outcome: Outcome },
    /// An event that changed nothing (its order does not exist) was recorded as handled.
    RecordedWithoutEffect,
    /// What any lesson can catch: a failed or stuck delivery, a hidden failure, a wait on
    /// another order, a test that could not run.
    Common(Common<Outcome>),
}

impl Speaks for ViolationKind {
    const WORDS: Words = Words {
        calls: Calls::DELIVERIES,
        aggregate: "order",
        retrier: "broker",
        lost: "the event is lost",
        reporting_rule: "Only a duplicate means \"already handled\"; any other error must \
                         reach the caller.",
        second_process: "a second consumer",
    };

    /// The saga's lessons build on each other: each topic is explained in the chapter that
    /// introduces it.
    fn see(topic: Topic) -> String {
        match topic {
            Topic::OneProcess | Topic::Neighbours => see("04", "Other orders do not wait"),
            Topic::Reporting => see("03", "What a failed delivery leaves behind"),
            Topic::Failed(FailureCause::PoolExhausted) => see("03", "A statement on the pool"),
            Topic::Failed(FailureCause::TransactionAborted) => {
                see("02", "The same wait, without the error")
            }
            Topic::Failed(FailureCause::Other) => see("02", "The insert is the decision"),
            Topic::Failed(_) => see("04", "When the wait ends in an error"),
        }
    }
}

impl Explain<Delivery> for ViolationKind {
    kit::common_kinds!(Outcome);

    fn explain(&self, during: &Delivery, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{during}: ")?;
        match self {
            ViolationKind::ResolvedTwice {
                announcements,
                status,
            } => {
                let same_event = announcements.windows(2).all(|w| w[0].1 == w[1].1);
                writeln!(
                    f,
                    "the order was announced {} times: {}; it ends {status}.",
                    announcements.len(),
                    tally(announcements)
                )?;
                if same_event {
                    write!(
                        f,
                        "One event, applied more than once. Whatever the handler checked before \
                         applying it, every delivery passed, since none could see another's \
                         uncommitted record; and if processed_events refused the duplicate \
                         record, the handler did not act on the refusal.\n{}",
                        see("02", "The insert is the decision")
                    )
                } else {
                    let verdicts = if contradicting(announcements) {
                        "The order left one terminal status for another, and the rest of the \
                         system heard contradicting verdicts."
                    } else {
                        "The rest of the system heard the order's verdict more than once."
                    };
                    write!(
                        f,
                        "Different events for one order, so the dedupe guard let each of them \
                         through, as it should: their ids differ. Then each delivery moved the \
                         order, so every delivery after the first moved an order another had \
                         already resolved, and its terminal-state guard let it: the guard read \
                         the status before the other's change committed, read something other \
                         than the status, or never looked. {verdicts}\n{}",
                        see("04", "The race the status check loses")
                    )
                }
            }
            ViolationKind::LostEvent {
                event_id,
                gave_up: true,
            } => write!(
                f,
                "{event_id} is recorded in processed_events, but the order never changed: its \
                 delivery reported OrderAlreadyResolved while the order was still pending, and \
                 recorded the event as handled. Every redelivery will now be skipped as a duplicate, so \
                 the event can never be applied: it is lost. A delivery may only leave an order \
                 alone once it has seen, under the lock, that the order is no longer pending; one \
                 that gives up because another session holds the lock decides without \
                 knowing.\n{}",
                see("04", "When the wait ends in an error")
            ),
            ViolationKind::LostEvent {
                event_id,
                gave_up: false,
            } => write!(
                f,
                "{event_id} is recorded in processed_events, but the order never changed. Every \
                 redelivery will now be skipped as a duplicate, so the event can never be \
                 applied: it is lost, and the customer paid for an order that will never be \
                 confirmed. The record committed and the change it stands for did not, so the \
                 two were not committed together.\n{}",
                see("03", "Two commits, and the moment between them")
            ),
            ViolationKind::NeverApplied { handled_reports: 0 } => write!(
                f,
                "the order never changed and the event is not recorded: no delivery applied \
                 it.\n{}",
                see("02", "The insert is the decision")
            ),
            ViolationKind::NeverApplied { handled_reports } => write!(
                f,
                "the order never changed and the event is not recorded, yet {handled_reports} \
                 delivery(ies) reported it as handled already. A delivery that defers to \
                 another one before that one has committed decides without waiting: when the \
                 other then rolls back (here, it died), nobody applies the event.\n{}",
                see("03", "Decided without waiting")
            ),
            ViolationKind::ResolvedSilently { status } => write!(
                f,
                "the order is {status}, but the outbox holds no row saying so: the rest of the \
                 system will never hear of it (no confirmation e-mail, no shipment, no refund). \
                 A redelivery cannot repair it either, because the event is recorded as \
                 handled. The status change committed and its announcement did not, so the two \
                 were not committed together.\n{}",
                see("05", "The transaction is the third guard")
            ),
            ViolationKind::AnnouncedButNotSo { announced, status } => write!(
                f,
                "the outbox announces {announced}, but the order is {status}: the announcement \
                 committed without the change it announces.\n{}",
                see("05", "The transaction is the third guard")
            ),
            ViolationKind::ResolvedByWrongEvent {
                caused_by,
                expected,
            } => write!(
                f,
                "the order was resolved by {caused_by}, but {expected} reached it first and \
                 should have decided it.\n{}",
                see("04", "When the wait ends in an error")
            ),
            ViolationKind::PaidWrong {
                paid_cents,
                expected_cents,
                status,
                gave_up,
            } => {
                writeln!(
                    f,
                    "the order records {paid_cents} cents paid, but the payments delivered add up \
                     to {expected_cents}; it is {status}."
                )?;
                if paid_cents > expected_cents {
                    write!(
                        f,
                        "A redelivered instalment was counted again. The order was still \
                         pending, so a terminal-state check had nothing to refuse: only the \
                         dedupe guard can tell a redelivery from a second payment.\n{}",
                        see("04", "Why both guards")
                    )
                } else if *gave_up {
                    write!(
                        f,
                        "A payment was not counted: its delivery reported OrderAlreadyResolved \
                         while the order was still pending, so it gave the payment up. A \
                         delivery may only leave an order alone once it has seen, under the \
                         lock, that the order is no longer pending; one that gives up because \
                         another session holds the lock decides without knowing.\n{}",
                        see("04", "When the wait ends in an error")
                    )
                } else {
                    write!(
                        f,
                        "A payment was not counted, and no delivery failed or gave up: one \
                         delivery's write replaced another's instead of adding to it.\n{}",
                        see("04", "The race the status check loses")
                    )
                }
            }
            ViolationKind::DuplicateSurfacedAsError { errors, example } => write!(
                f,
                "the order changed once, but {errors} delivery(ies) returned an error: \
                 {example}\n\
                 A duplicate is not a failure: a consumer that returns an error does not \
                 commit its offset, so the broker redelivers, and alerts fire for an event that \
                 was handled.\n{}",
                see("02", "The same wait, without the error")
            ),
            ViolationKind::NotRecorded { event_id } => write!(
                f,
                "{event_id} is not in processed_events, although it was delivered and reported \
                 as handled, so its redelivery will be decided all over again. Every event the \
                 handler decides about must stay recorded, including one it ignores because its \
                 order is no longer pending.\n{}",
                see("04", "Leaving a resolved order alone")
            ),
            ViolationKind::MisreportedOutcome {
                detail,
                about_resolved,
            } => {
                let see_also = if *about_resolved {
                    see("04", "Leaving a resolved order alone")
                } else {
                    see("02", "What the handler reports")
                };
                write!(
                    f,
                    "the order is right, but {detail}. Applied belongs to the one delivery whose \
                     transaction changed the order, AlreadyApplied to a redelivered event id, and \
                     OrderAlreadyResolved to a new event whose order had already left \
                     pending.\n{}",
                    see_also
                )
            }
            ViolationKind::DecidedWithoutWaiting { outcome } => write!(
                f,
                "the second delivery reported {outcome:?} while the first delivery's \
                 transaction was still open, without waiting for it. The first delivery had not \
                 changed the order yet, and might never: a crash, a lost connection or a \
                 deploy would leave the event recorded and never applied. Until that \
                 transaction ends, nobody knows what it will commit.\n{}",
                see("03", "Decided without waiting")
            ),
            ViolationKind::ErrorHidden { outcome } => write!(
                f,
                "the handler reported {outcome:?}. The order does not exist, so nothing was \
                 applied and the sender must hear about it: only a duplicate means \"already \
                 handled\".\n{}",
                see("02", "What the handler reports")
            ),
            ViolationKind::RecordedWithoutEffect => write!(
                f,
                "the order does not exist, so nothing was applied, yet processed_events records \
                 the event as handled: once the order appears, the event will be skipped. The \
                 record committed although the change failed.\n{}",
                see("03", "Recorded without effect")
            ),
            ViolationKind::Common(common) => common.explain::<Self>(f),
        }
    }
}

/// Whether the rows announce different verdicts (a confirmation and a cancellation).
fn contradicting(announcements: &[(String, String)]) -> bool {
    announcements.windows(2).any(|w| w[0].0 != w[1].0)
}

/// "2 x order.confirmed (caused by pay-1), order.cancelled (caused by pay-2)", with at most
/// four kinds of row named: thirty-two workers can write thirty-two rows.
fn tally(announcements: &[(String, String)]) -> String {
    let mut counted: Vec<(&(String, String), usize)> = Vec::new();
    for row in announcements {
        match counted.iter_mut().find(|(seen, _)| *seen == row) {
            Some((_, count)) => *count += 1,
            None => counted.push((row, 1)),
        }
    }
    let mut named: Vec<String> = counted
        .iter()
        .take(4)
        .map(|((kind, cause), count)| match count {
            1 => format!("{kind} (caused by {cause})"),
            n => format!("{n} x {kind} (caused by {cause})"),
        })
        .collect();
    if counted.len() > 4 {
        named.push(format!("and {} more", counted.len() - 4));
    }
    named.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_identical_rows_are_counted_not_listed() {
        let row = |kind: &str, cause: &str| (kind.to_string(), cause.to_string());
        let rows = vec![row("order.confirmed", "pay-1"); 32];
        assert_eq!(tally(&rows), "32 x order.confirmed (caused by pay-1)");
        let mixed: Vec<_> = (0..6)
            .map(|i| row("order.cancelled", &format!("pay-{i}")))
            .collect();
        assert!(tally(&mixed).ends_with("and 2 more"), "{}", tally(&mixed));
        assert!(!contradicting(&mixed));
    }
}
