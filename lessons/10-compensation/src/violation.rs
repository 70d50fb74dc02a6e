use std::fmt;

use kit::{Calls, Common, Explain, Speaks, Topic, Words};

use crate::Outcome;

pub use kit::{Delivery, FailureCause};

kit::violations!(chapter "10");

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
        /// The key of a tombstone the release left under something else than the order's id.
        elsewhere: Option<String>,
    },
    /// Nothing was held and nothing returned, as it should be, but the reports do not say
    /// that the first release found nothing to release and every later delivery changed
    /// nothing.
    NothingReservedMisreported { reports: Vec<Outcome> },
    /// What any lesson can catch: a failed or stuck delivery, a hidden failure, a wait on
    /// another order, a test that could not run.
    Common(Common<Outcome>),
}

impl Speaks for ViolationKind {
    const WORDS: Words = Words {
        calls: Calls::DELIVERIES,
        aggregate: "order",
        retrier: "broker",
        lost: "the reservation stays held for good",
        reporting_rule: "A failed compensation must say it failed, so that it is tried again.",
        second_process: "a second instance of the inventory service",
    };

    fn see(topic: Topic) -> String {
        match topic {
            Topic::OneProcess | Topic::Neighbours => see("Other orders do not wait"),
            Topic::Failed(FailureCause::PoolExhausted) | Topic::Reporting => {
                see("The announcement commits with the release")
            }
            Topic::Failed(_) => see("Settled once, reported once"),
        }
    }
}

impl Explain<Delivery> for ViolationKind {
    kit::common_kinds!(Outcome);

    fn explain(&self, during: &Delivery, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.open(during, f)?;
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
            ViolationKind::HeldForACancelledOrder {
                summary,
                reported,
                elsewhere,
            } => {
                let reported = match reported {
                    Some(outcome) => format!("the release reported {outcome:?}"),
                    None => "the release failed".to_string(),
                };
                let why = match elsewhere {
                    None => "The release left nothing the reservation could see: the \
                             reservation holds nothing only for an order that has a row already."
                        .to_string(),
                    Some(key) => format!(
                        "The release did leave a row, a released reservation that holds \
                         nothing, but under {key:?}, not under the order's id: the reservation \
                         looks for the order's own row, found none, and held the units. What a \
                         compensation leaves is found by what it compensates: the order."
                    ),
                };
                write!(
                    f,
                    "{summary}. The order's release came first, and {reported}; then its \
                     reservation took the units off the shelf for an order that is over, and no \
                     event will ever release them.\n{why}\n{}",
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
            ViolationKind::Common(common) => common.explain::<Self>(f),
        }
    }
}
