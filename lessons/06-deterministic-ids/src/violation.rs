use std::fmt;

use kit::{Calls, Common, Explain, Speaks, Topic, Words};

use crate::Outcome;

pub use kit::{Delivery, FailureCause};

kit::violations!(chapter "06");

#[derive(Debug)]
pub enum ViolationKind {
    /// The card network took more than one charge for the order, under `keys` different
    /// idempotency keys.
    ChargedTwice {
        order_id: String,
        charges: usize,
        keys: usize,
    },
    /// The saga was told about the order's payment under more than one event id: its dedupe
    /// guard would take each for a payment of its own.
    AnnouncedUnderTwoIds { order_id: String, ids: Vec<String> },
    /// The card was charged, and the saga was never told.
    ChargedButNotAnnounced { order_id: String },
    /// Nothing was charged and nothing announced.
    NeverPaid { order_id: String },
    /// The step's record of the payment committed, and no charge stands behind it: every
    /// later delivery finds the record and charges nothing.
    RecordedWithoutACharge { order_id: String },
    /// The payment was taken once, but deliveries that lost the race returned the unique
    /// violation as an error.
    DuplicateSurfacedAsError { errors: usize, example: String },
    /// The payment was taken and announced, but no delivery reported `Applied`.
    NoDeliveryReportedApplied,
    /// What any lesson can catch: a failed or stuck delivery, a hidden failure, a wait on
    /// another order, a test that could not run.
    Common(Common<Outcome>),
}

impl Speaks for ViolationKind {
    const WORDS: Words = Words {
        calls: Calls::DELIVERIES,
        aggregate: "order",
        retrier: "broker",
        lost: "the saga never hears of the payment",
        reporting_rule: "Only a duplicate means \"already applied\"; every other error \
                         stays an error.",
        second_process: "a second instance of the payment step",
    };

    fn see(topic: Topic) -> String {
        match topic {
            Topic::OneProcess | Topic::Neighbours => see("Other orders do not wait"),
            Topic::Reporting => see("A call no transaction can take back"),
            Topic::Failed(_) => see("The record decides what to announce"),
        }
    }
}

impl Explain<Delivery> for ViolationKind {
    kit::common_kinds!(Outcome);

    fn explain(&self, during: &Delivery, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.open(during, f)?;
        match self {
            ViolationKind::ChargedTwice {
                order_id,
                charges,
                keys,
            } if keys == charges => write!(
                f,
                "the card network charged {order_id}'s customer {charges} times (expected \
                 once), each time under a different idempotency key.\n\
                 The network deduplicates on the key it is given, and nothing else: a request \
                 under a key it has never seen is a new charge, however much it looks like the \
                 last one. Each delivery handed it a key of its own making, so a retry looked \
                 like a new purchase. The charge is not part of the handler's transaction: \
                 rolling back, or finding a record later, takes none of it back.\n{}",
                see("A key the network can recognise")
            ),
            ViolationKind::ChargedTwice {
                order_id,
                charges,
                keys,
            } => write!(
                f,
                "the card network charged {order_id}'s customer {charges} times (expected \
                 once), under {keys} idempotency key(s): some requests shared a key and the \
                 network answered them with one charge, but the others did not.\n{}",
                see("A key the network can recognise")
            ),
            ViolationKind::AnnouncedUnderTwoIds { order_id, ids } => write!(
                f,
                "the saga was told about {order_id}'s payment under {} different event ids: \
                 {}.\n\
                 The saga deduplicates on the event id (lesson 02's guard): to it, these are {} \
                 different payments, and it would count each one towards the order. A guard \
                 downstream can only recognise a repeat that carries the same id as the first \
                 time, so the id must come out the same whichever delivery, or replay, \
                 announces the payment.\n{}",
                ids.len(),
                ids.join(", "),
                ids.len(),
                see("Why the saga's guard cannot help")
            ),
            ViolationKind::ChargedButNotAnnounced { order_id } => write!(
                f,
                "{order_id}'s customer was charged, but the outbox announces nothing: the saga \
                 will never hear of the payment, and the order stays pending for good.\n\
                 The delivery that charged never committed its announcement, and the one after \
                 it decided there was nothing left to do. A charge the network remembers is \
                 not a payment the saga was told about.\n{}",
                see("The record decides what to announce")
            ),
            ViolationKind::NeverPaid { order_id } => write!(
                f,
                "nothing was charged for {order_id} and nothing announced (expected one charge \
                 and one announcement): every delivery decided the payment had been taken \
                 already.\n{}",
                see("The record decides what to announce")
            ),
            ViolationKind::RecordedWithoutACharge { order_id } => write!(
                f,
                "nothing was charged for {order_id} and nothing announced (expected one charge \
                 and one announcement), yet the step holds a payments row for it.\n\
                 That record committed before the card network took the charge, and the \
                 delivery died in between; every later delivery found the record and charged \
                 nothing. A record that commits ahead of a call no transaction can take back \
                 makes the call at most once: only the charge's key can make repeating it \
                 safe.\n{}",
                see("A call no transaction can take back")
            ),
            ViolationKind::DuplicateSurfacedAsError { errors, example } => write!(
                f,
                "the customer was charged once and the payment announced once, but {errors} \
                 delivery(ies) returned an error: {example}\n\
                 That is a duplicate losing a race, not a failure. The broker reads an error as \
                 \"not processed\": it redelivers, raises alerts, and may dead-letter an order \
                 that was paid long ago.\n{}",
                see("The record decides what to announce")
            ),
            ViolationKind::NoDeliveryReportedApplied => write!(
                f,
                "the payment was taken and announced once, yet no delivery reported \
                 Outcome::Applied. Applied means \"this delivery's transaction committed the \
                 announcement\", which one of them did.\n{}",
                see("The record decides what to announce")
            ),
            ViolationKind::Common(common) => common.explain::<Self>(f),
        }
    }
}
