use std::fmt;

use kit::{Explain, KitError};

use crate::Outcome;

pub use kit::FailureCause;

/// What a scenario caught, and how the events were delivered when it did. Its `Display` (and
/// its `Debug`, which is what a failing test prints) is the teaching message: what happened,
/// why it is wrong, and where the book explains it.
pub type Violation = kit::Violation<ViolationKind, Delivery>;

/// Lesson 10's chapter, for [`see`].
const LESSON: &str = "10";

fn see(section: &str) -> String {
    kit::see(LESSON, section)
}

#[derive(Debug)]
pub enum ViolationKind {
    /// More units went back on the shelf than the order had reserved: the reservation was
    /// released more than once (`releases` deliveries reported a release).
    ReleasedTwice {
        order_id: String,
        quantity: i32,
        returned: i32,
        releases: usize,
    },
    /// The reservation was consumed (the units sold) and released (the units returned): one
    /// delivery reported each, or the stock and the status disagree.
    SettledBothWays {
        order_id: String,
        status: String,
        returned: i32,
    },
    /// The units are back and the reservation says released, but the outbox announces nothing.
    ReleasedButNotAnnounced { order_id: String },
    /// One release, announced under more than one event id.
    AnnouncedTwice { order_id: String, ids: Vec<String> },
    /// Every delivery is over and the reservation is still held.
    NeverSettled { order_id: String, returned: i32 },
    /// The status, the stock and the outbox tell different stories.
    StateDisagrees { summary: String },
    /// The reservation was settled once, but the deliveries' reports do not say so: none, or
    /// more than one, reported the settlement.
    Misreported {
        status: String,
        released: usize,
        consumed: usize,
    },
    /// The reservation was settled once, but deliveries were refused by a unique key (23505)
    /// and returned that as an error.
    RefusedByAKey { errors: usize, example: String },
    /// A delivery failed with something other than a unique violation.
    HandlerFailed { error: String, cause: FailureCause },
    /// A delivery whose statement was cancelled (57014), or whose session was terminated,
    /// reported an outcome instead of the error, although its transaction rolled back.
    FailureHidden { outcome: Outcome, fault: kit::Fault },
    /// A delivery for another order waited while one order's reservation was locked.
    WaitedOnAnotherOrder,
    /// A release that reached the inventory before the order's reservation had committed
    /// failed.
    FailedWithoutAReservation {
        /// The event and its order: `order.cancelled evt-cancelled-ord-1 for ord-1`.
        event: String,
        error: String,
    },
    /// A release came first, and once the reservation came, its units were held for the
    /// cancelled order all the same.
    HeldForACancelledOrder {
        summary: String,
        /// What the release reported, if it did not fail.
        reported: Option<Outcome>,
    },
    /// Nothing was held and nothing returned, as it should be, but the reports do not say
    /// that the first release found nothing to release and every later delivery changed
    /// nothing.
    NothingReservedMisreported { reports: Vec<Outcome> },
    /// A delivery returned, and its session still held a lock or an open transaction.
    LeftBehind { detail: String },
    /// A worker neither finished nor waited on a database lock.
    Stuck { detail: String },
    /// The test could not run at all (no database, a migration that does not apply, …).
    Setup(Box<KitError>),
}

/// How the events reached the inventory service.
#[derive(Debug, Clone, Copy)]
pub enum Delivery {
    /// A scenario's story, in one sentence.
    Story(&'static str),
    /// `workers` workers released together by a barrier, in round `round` of `rounds`.
    Barrier {
        workers: usize,
        round: usize,
        rounds: usize,
    },
}

impl fmt::Display for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Delivery::Story(story) => f.write_str(story),
            Delivery::Barrier {
                workers,
                round,
                rounds,
            } => write!(
                f,
                "{workers} workers were released together by a barrier, each with an event for \
                 the same held reservation: payment.failed, order.cancelled and \
                 payment.succeeded, some of them more than once (round {round} of {rounds})"
            ),
        }
    }
}

impl Explain<Delivery> for ViolationKind {
    fn setup(error: KitError) -> Self {
        ViolationKind::Setup(Box::new(error))
    }

    fn stuck(detail: String) -> Self {
        ViolationKind::Stuck { detail }
    }

    fn left_behind(detail: String) -> Self {
        ViolationKind::LeftBehind { detail }
    }

    fn explain(&self, during: &Delivery, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !matches!(self, ViolationKind::Setup(_)) {
            write!(f, "{during}: ")?;
        }
        match self {
            ViolationKind::ReleasedTwice {
                order_id,
                quantity,
                returned,
                releases,
            } => write!(
                f,
                "{order_id}'s reservation was released more than once: {returned} units went \
                 back on the shelf for an order that had reserved {quantity}, and {releases} \
                 delivery(ies) reported Released.\n\
                 The extra units were never there: the shop will sell stock it does not have. \
                 A compensation is an ordinary forward action with an effect of its own, so a \
                 repeat of it is a second effect, exactly like a payment applied twice; and two \
                 different events (a failed payment, a cancellation) can each call for the same \
                 release. Each delivery decided \"still held\" from a read that could not see \
                 the other delivery's release, which had not committed yet.\n{}",
                see("Two reasons to release, one reservation")
            ),
            ViolationKind::SettledBothWays {
                order_id,
                status,
                returned,
            } => write!(
                f,
                "{order_id}'s reservation was settled both ways: one delivery consumed it (the \
                 units are sold and will ship) and another released it (the units went back on \
                 the shelf). It now says {status:?}, with {returned} unit(s) returned.\n\
                 Consumed and released are both terminal: whichever event reaches a held \
                 reservation first settles it, and every later one must leave it alone. Here \
                 the second delivery read \"held\" while the first was still settling it, \
                 decided from that read, and wrote over the first one's decision once it \
                 committed.\n{}",
                see("Consumed, then released")
            ),
            ViolationKind::ReleasedButNotAnnounced { order_id } => write!(
                f,
                "{order_id}'s units are back in stock and its reservation says released, but \
                 the outbox announces no stock.released: the rest of the saga will never hear \
                 of the release.\n\
                 The delivery that released it committed the release without its announcement, \
                 and the one after it found the work done and had nothing left to do. The \
                 release and what it tells the others must commit together, or neither.\n{}",
                see("The announcement commits with the release")
            ),
            ViolationKind::AnnouncedTwice { order_id, ids } => write!(
                f,
                "{order_id}'s reservation was released once, but stock.released was announced \
                 under {} event ids: {}.\n\
                 Downstream consumers deduplicate on the event id: to them these are {} \
                 releases, and a stock report would count the units back twice. A consumer \
                 can only recognise a repeat that carries the same id as the first time, so \
                 the id must come out the same whichever delivery, or replay, announces the \
                 release.\n{}",
                ids.len(),
                ids.join(", "),
                ids.len(),
                see("The announcement commits with the release")
            ),
            ViolationKind::NeverSettled { order_id, returned } => write!(
                f,
                "every delivery is over and {order_id}'s reservation is still held \
                 ({returned} unit(s) returned): the compensation was lost. Each delivery \
                 decided that there was nothing (left) to do, though none of them settled it, \
                 so its units stay out of stock for an order that will never ship.\n{}",
                see("The announcement commits with the release")
            ),
            ViolationKind::StateDisagrees { summary } => write!(
                f,
                "the reservation, the stock and the outbox tell different stories: {summary}.\n\
                 A release is one change of three rows (the reservation's status, the \
                 product's stock, the announcement), made by one delivery in one \
                 transaction.\n{}",
                see("Settled once, reported once")
            ),
            ViolationKind::Misreported {
                status,
                released,
                consumed,
            } => write!(
                f,
                "the reservation was settled once (it says {status:?}), yet {released} \
                 delivery(ies) reported Released and {consumed} reported Consumed. Exactly one \
                 delivery's transaction committed the settlement, and only that one may say \
                 so; every other one changed nothing and must say that instead, or the logs \
                 and metrics count compensations that never happened.\n{}",
                see("Settled once, reported once")
            ),
            ViolationKind::RefusedByAKey { errors, example } => write!(
                f,
                "the reservation was settled once, but {errors} delivery(ies) returned an \
                 error: {example}\n\
                 A unique key refused a row the delivery tried to write a second time: the \
                 delivery had decided to do work that another delivery had already done, and \
                 only the key stopped it, with an error. The broker reads an error as \"not processed\": it \
                 redelivers, raises alerts, and may dead-letter an event whose work was \
                 complete.\n{}",
                see("Settled once, reported once")
            ),
            ViolationKind::HandlerFailed { error, cause } => {
                writeln!(f, "a delivery failed: {error}")?;
                let (why, see_also) = match cause {
                    FailureCause::PoolExhausted => (
                        "The pool had no free connection. In these tests each worker has one \
                         connection of its own, which its open transaction holds; a statement \
                         sent to the pool instead of the transaction waits for a second \
                         connection that never comes.",
                        see("The announcement commits with the release"),
                    ),
                    FailureCause::Serialization => (
                        "The transaction runs at REPEATABLE READ or SERIALIZABLE, where the \
                         database aborts one of two conflicting transactions instead of \
                         letting the second wait and see the first's change. The guards here \
                         are built on read committed, PostgreSQL's default; at a stricter \
                         level, every such abort is a failed delivery unless the handler \
                         retries it.",
                        see("Settled once, reported once"),
                    ),
                    FailureCause::Deadlock => (
                        "Two deliveries both read the reservation under a lock that does not \
                         keep the other out, and then each waited for the other's lock to \
                         write: neither could go on, and the database aborted one of them. A \
                         read that decides a write must keep other deciders out until it \
                         commits.",
                        see("Settled once, reported once"),
                    ),
                    _ => (
                        "Only a repeat may be reported as handled; this error means the \
                         handler could not do its job, which a correct handler can. The \
                         SQLSTATE says what the database refused.",
                        see("Settled once, reported once"),
                    ),
                };
                write!(f, "{why}\n{see_also}")
            }
            ViolationKind::FailedWithoutAReservation { event, error } => write!(
                f,
                "{event} reached the inventory while the order had no committed reservation, \
                 and the delivery failed: {error}\n\
                 A compensation can arrive before the action it compensates: the order's \
                 cancellation and its creation travel different paths, and nothing orders one \
                 after the other. A delivery that fails is delivered again until the broker \
                 gives up on it; and the reservation made after that holds units for an order \
                 that is over.\n{}",
                see("The compensation that overtakes the action")
            ),
            ViolationKind::HeldForACancelledOrder { summary, reported } => {
                let reported = match reported {
                    Some(outcome) => format!("the release reported {outcome:?}"),
                    None => "the release failed".to_string(),
                };
                write!(
                    f,
                    "{summary}. The order's release came first, and {reported}; then its \
                     reservation took the units off the shelf for an order that is over, and no \
                     event will ever release them.\n\
                     The release left nothing the reservation could see: the reservation \
                     holds nothing only for an order that has a row already.\n{}",
                    see("The compensation that overtakes the action")
                )
            }
            ViolationKind::NothingReservedMisreported { reports } => write!(
                f,
                "nothing was held for the order and nothing went back on the shelf, as it \
                 should be, but the deliveries reported {reports:?}. NothingReserved belongs \
                 to the one delivery that found nothing to release; every later delivery, a \
                 repeat or another event, changed nothing (AlreadyProcessed, AlreadySettled); \
                 Released says units went back on the shelf, and none did.\n{}",
                see("The compensation that overtakes the action")
            ),
            ViolationKind::FailureHidden { outcome, fault } => write!(
                f,
                "the first delivery's {} and its transaction rolled back, so nothing of its \
                 release was kept, yet the handler reported {outcome:?}. A broker stops redelivering on such a report: had this \
                 redelivery not been scripted, the reservation would have stayed held for \
                 good. A failed compensation must say it failed, so that it is tried again.\n{}",
                fault.what_it_did(),
                see("The announcement commits with the release")
            ),
            ViolationKind::WaitedOnAnotherOrder => write!(
                f,
                "both reservations were settled once, but the delivery for ord-2 had to wait \
                 while another session held ord-1's reservation: it was seen waiting on a lock \
                 when it started. Nothing about ord-2 was locked, so the handler locks more \
                 than the reservation it settles (a whole table, or one advisory key shared by \
                 every order). That is still correct, but one slow release now holds up every \
                 order's.\n{}",
                see("Other orders do not wait")
            ),
            ViolationKind::LeftBehind { detail } => {
                write!(f, "{detail}\n{}", kit::left_behind("delivery"))
            }
            ViolationKind::Stuck { detail } => write!(
                f,
                "{detail}\n\
                 The test's observer sees only database locks. A worker waiting on anything \
                 else is waiting on something that lives in one process, such as a Mutex, and \
                 a second instance of the inventory service would not wait for it.\n{}",
                see("Other orders do not wait")
            ),
            ViolationKind::Setup(error) => write!(f, "the test could not run: {error}"),
        }
    }
}
