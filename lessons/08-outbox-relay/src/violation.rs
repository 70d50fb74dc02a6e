use std::fmt;

use kit::{Calls, Common, Explain, Speaks, Topic, Words};

pub use kit::FailureCause;

kit::violations!(chapter "08");

#[derive(Debug)]
pub enum ViolationKind {
    /// A committed outbox row never reached the broker, and no relay will send it.
    NeverPublished {
        outbox_id: i64,
        event_id: String,
        marked_sent: bool,
        /// When the broker refused this row's publish, what the relay's pass reported then
        /// (`Ok(n)`: n rows relayed), if it reported success.
        refusal_reported_as: Option<usize>,
    },
    /// One announcement shipped more than once.
    AppliedTwice {
        event_id: String,
        outbox_id: i64,
        published: i64,
        shipped: i64,
    },
    /// A published announcement never shipped: the consumer recorded it as handled without its
    /// effect.
    NeverApplied {
        event_id: String,
        outbox_id: i64,
        published: i64,
    },
    /// After the producer's restore, a new event was reported as handled before, and never
    /// shipped: the consumer knew it by an id an earlier event had had.
    TakenForAnother {
        event_id: String,
        outbox_id: i64,
        /// The event that had that outbox id before the restore, if the consumer saw one.
        earlier: Option<String>,
    },
    /// Every row shipped once, but a consumer that lost a race returned the unique violation.
    DuplicateSurfacedAsError { errors: usize, example: String },
    /// What any lesson can catch: a failed or stuck step, a hidden failure, a wait on another
    /// order, a test that could not run.
    Common(Common<crate::Outcome>),
}

/// How the pipeline ran.
#[derive(Debug, Clone, Copy)]
pub enum Delivery {
    /// A scenario's story, in one sentence.
    Story(&'static str),
    /// `relays` relays released together by a barrier, each passing over the outbox until it
    /// found nothing, and then the consumer handled every message.
    Barrier { relays: usize },
}

impl From<&'static str> for Delivery {
    fn from(story: &'static str) -> Self {
        Delivery::Story(story)
    }
}

/// Lesson 08 releases no spec's workers (its barrier has each relay pass until it finds
/// nothing, which a spec's barrier cannot say): a round would be told as that barrier is.
impl From<kit::Round> for Delivery {
    fn from(round: kit::Round) -> Self {
        Delivery::Barrier {
            relays: round.workers,
        }
    }
}

impl fmt::Display for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Delivery::Story(story) => f.write_str(story),
            Delivery::Barrier { relays } => write!(
                f,
                "{relays} relays were released together by a barrier, each passing over the \
                 outbox until it found nothing, and then the consumer handled every message"
            ),
        }
    }
}

impl Speaks for ViolationKind {
    const WORDS: Words = Words {
        calls: Calls {
            call: "step",
            caller: "relay or consumer",
            code: "consumer",
        },
        aggregate: "order",
        retrier: "broker",
        lost: "the order never ships",
        reporting_rule: "Only a message handled before is \"already applied\"; any other \
                         error must reach the broker.",
        second_process: "another relay or consumer",
    };

    fn see(topic: Topic) -> String {
        match topic {
            Topic::Failed(FailureCause::PoolExhausted) | Topic::Reporting => {
                see("A record committed apart from the shipment")
            }
            Topic::Failed(_) | Topic::OneProcess => see("Two relays at once"),
            Topic::Neighbours => see("Other orders do not wait"),
        }
    }

    fn meaning(cause: FailureCause) -> Option<&'static str> {
        (cause == FailureCause::Other).then_some(
            "A correct relay and consumer run these steps without an error; the SQLSTATE says \
             what the database refused.",
        )
    }
}

impl Explain<Delivery> for ViolationKind {
    kit::common_kinds!(crate::Outcome);

    fn explain(&self, during: &Delivery, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.open(during, f)?;
        match self {
            ViolationKind::NeverPublished {
                outbox_id,
                event_id,
                marked_sent: false,
                ..
            } => write!(
                f,
                "outbox row {outbox_id} ({event_id}) committed, yet it never reached the \
                 broker, and the relay has stopped finding rows to send: it never will.\n\
                 The relay remembered how far it got (the highest id, or time, it had sent) and \
                 looks only beyond that. But ids and times are drawn when a row is written, and \
                 transactions commit in their own order: this row's transaction drew the lower \
                 id and committed after the relay had passed it.\n{}",
                see("The relay's high-water mark")
            ),
            ViolationKind::NeverPublished {
                outbox_id,
                event_id,
                marked_sent: true,
                refusal_reported_as: Some(relayed),
            } => write!(
                f,
                "outbox row {outbox_id} ({event_id}) is marked sent, yet the broker never \
                 received it. The broker refused its publish with an error, and the relay's \
                 pass that met the error reported success ({relayed} row(s) relayed): the error \
                 reached no one, and no later pass looks at a row marked sent.\n{}",
                see("A relay publishes at least once")
            ),
            ViolationKind::NeverPublished {
                outbox_id,
                event_id,
                marked_sent: true,
                refusal_reported_as: None,
            } => write!(
                f,
                "outbox row {outbox_id} ({event_id}) is marked sent, yet the broker never \
                 received it: the mark committed without the publication it stands for.\n{}",
                see("A relay publishes at least once")
            ),
            ViolationKind::AppliedTwice {
                event_id,
                outbox_id,
                published,
                shipped,
            } => write!(
                f,
                "{event_id} (outbox row {outbox_id}) was published {published} time(s), and the \
                 warehouse shipped it {shipped} times (expected once).\n\
                 Copies of an event are part of the deal: a relay that dies or fails between \
                 publishing and marking its rows sent publishes them again, a broker redelivers \
                 what was not acknowledged, and a producer may announce an event again. The \
                 consumer handled each copy as new; nothing recorded which events it had already \
                 handled.\n{}",
                see("The consumer must recognise a copy")
            ),
            ViolationKind::NeverApplied {
                event_id,
                outbox_id,
                published,
            } => write!(
                f,
                "{event_id} (outbox row {outbox_id}) was published {published} time(s), and the \
                 warehouse never shipped it: the consumer recorded the event as handled, and \
                 the shipment did not commit with that record, so every later copy is taken \
                 for a duplicate.\n{}",
                see("A record committed apart from the shipment")
            ),
            ViolationKind::TakenForAnother {
                event_id,
                outbox_id,
                earlier,
            } => {
                let earlier = match earlier {
                    Some(earlier) => format!(
                        "Before the restore, outbox row {outbox_id} was {earlier}, which the \
                         consumer had handled; the restored producer drew id {outbox_id} again \
                         for a new event, and the consumer took the new event for the old one."
                    ),
                    None => format!(
                        "The restored producer drew outbox id {outbox_id} again, and the \
                         consumer took the new event for one it had handled."
                    ),
                };
                write!(
                    f,
                    "the consumer reported {event_id} (outbox row {outbox_id}) AlreadyApplied, \
                     and the warehouse never shipped it: {event_id} had never been handled \
                     before. {earlier}\n\
                     An outbox row's id names a row in one copy of the producer's database, and \
                     a restore, or a failover to a standby that had not received the last \
                     commits, hands it out again.\n{}",
                    see("An id that survives a restore")
                )
            }
            ViolationKind::DuplicateSurfacedAsError { errors, example } => write!(
                f,
                "every row shipped once, but {errors} delivery(ies) returned an error: \
                 {example}\n\
                 That is a duplicate losing a race, not a failure. The broker reads an error as \
                 \"not processed\" and redelivers, or dead-letters, a message that was handled \
                 long ago.\n{}",
                see("A copy that loses a race is not an error")
            ),
            ViolationKind::Common(common) => common.explain::<Self>(f),
        }
    }
}
