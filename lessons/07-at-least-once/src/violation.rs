use std::fmt;

use kit::{Calls, Common, Explain, Speaks, Topic, Words};

use crate::Polled;

pub use kit::FailureCause;

kit::violations!(chapter "07");

#[derive(Debug)]
pub enum ViolationKind {
    /// Events of the log were never handled, and the group's offset has moved past them.
    EventsLost {
        lost: usize,
        example: String,
        next_position: i64,
    },
    /// An order ended other than handling every event exactly once would leave it.
    OrderDiffers(Box<Mismatch>),
    /// An order ended as its verdicts make it when applied in another order than the log's.
    AppliedOutOfOrder(Box<Mismatch>),
    /// The group's committed offset points past the end of the log: events appended later will
    /// be skipped.
    OffsetPastTheEnd { next_position: i64, last: i64 },
    /// The polls that succeeded took more events than the log holds: some event was taken by
    /// two polls, and neither failed.
    TakenTwice { taken: usize, positions: usize },
    /// Polling stopped taking events while the offset was still short of the end of the log.
    NotCaughtUp {
        next_position: i64,
        last: i64,
        polls: usize,
    },
    /// Another consumer group's offset moved, although nothing polled as that group.
    MovedAnotherGroup {
        group: &'static str,
        from: i64,
        to: i64,
    },
    /// On a Kafka broker: verdicts of the partition were never handled, and the group's offsets
    /// (on the broker, and stored with the effects) are where they are.
    LostOnTheBroker {
        lost: usize,
        example: String,
        on_the_broker: Option<i64>,
        stored: Option<i64>,
    },
    /// On a Kafka broker: a consumer that had lost the partition (`zombie`: the batch it held)
    /// moved the offset stored with the effects back, from `from` to `to`.
    OffsetWentBack { from: i64, to: i64, zombie: String },
    /// On a Kafka broker: a consumer stopped before it had read the partition to its end.
    ConsumerStopped { why: String },
    /// What any lesson can catch: a failed or stuck poll, a wait on another group, a test that
    /// could not run.
    Common(Common<Polled>),
}

/// An order as the model leaves it, and as the consumer did.
#[derive(Debug)]
pub struct Mismatch {
    pub order_id: String,
    pub expected: String,
    pub found: String,
}

/// How the log was consumed.
#[derive(Debug, Clone, Copy)]
pub enum Delivery {
    /// A scenario's story, in one sentence.
    Story(&'static str),
    /// `consumers` consumers of one group, released together by a barrier, polling until the
    /// log was consumed.
    Barrier { consumers: usize },
    /// The soak: `events` events, a consumer killed `kills` times at points drawn from `seed`.
    Soak {
        seed: u64,
        events: usize,
        kills: usize,
    },
    /// The soak on a Kafka broker: `events` verdicts produced to a topic while consumers of one
    /// group consumed them, each killed once busy with a batch, `kills` times, at points drawn
    /// from `seed`.
    KafkaSoak {
        seed: u64,
        events: usize,
        kills: usize,
    },
}

impl From<&'static str> for Delivery {
    fn from(story: &'static str) -> Self {
        Delivery::Story(story)
    }
}

/// Lesson 07 releases no spec's workers (its barrier has each consumer poll until the log is
/// consumed, which a spec's barrier cannot say): a round would be told as that barrier is.
impl From<kit::Round> for Delivery {
    fn from(round: kit::Round) -> Self {
        Delivery::Barrier {
            consumers: round.workers,
        }
    }
}

impl fmt::Display for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Delivery::Story(story) => f.write_str(story),
            Delivery::Barrier { consumers } => write!(
                f,
                "{consumers} consumers of one group were released together by a barrier, each \
                 polling until the log was consumed"
            ),
            Delivery::Soak {
                seed,
                events,
                kills,
            } => write!(
                f,
                "the soak appended {events} events while a consumer polled, and killed the \
                 consumer {kills} times (seed {seed}: WORKBOOK_SOAK_SEED={seed} replays the same \
                 log and kill schedule)"
            ),
            Delivery::KafkaSoak {
                seed,
                events,
                kills,
            } => write!(
                f,
                "on a Kafka broker, the soak produced {events} verdicts to a topic while \
                 consumers of one group consumed them, and killed a consumer busy with a batch \
                 {kills} times, each time starting a new one that the group assigned the \
                 partition (seed {seed}: WORKBOOK_SOAK_SEED={seed} replays the same verdicts and \
                 kill schedule)"
            ),
        }
    }
}

impl Speaks for ViolationKind {
    const WORDS: Words = Words {
        calls: Calls {
            call: "poll",
            caller: "consumer",
            code: "consumer",
        },
        aggregate: "group",
        retrier: "broker",
        lost: "the batch's events are lost",
        reporting_rule: "A failed poll must say so, so that its batch is polled again.",
        second_process: "another consumer of the group",
    };

    fn see(topic: Topic) -> String {
        match topic {
            Topic::Failed(FailureCause::PoolExhausted) | Topic::Reporting => {
                see("Two commits, and a crash between them")
            }
            Topic::Failed(_) | Topic::OneProcess => see("Consumers of one group"),
            Topic::Neighbours => see("Other groups of the log"),
        }
    }

    /// Consumers of one group meet only at the group's offset row: what each abort means there.
    fn meaning(cause: FailureCause) -> Option<&'static str> {
        match cause {
            FailureCause::Serialization => Some(
                "The transaction runs at REPEATABLE READ or SERIALIZABLE, where the database \
                 aborts the second of two consumers that read and then update the group's \
                 offset, instead of letting it wait and read the first's. At a stricter level, \
                 every such abort is a failed poll unless the consumer retries it.",
            ),
            FailureCause::Deadlock => Some(
                "Two consumers of the group deadlocked, and the database aborted one to break \
                 the cycle. Consumers that handle different batches of the log at the same time \
                 lock the same orders in different orders; consumers that take turns on the \
                 group's offset never hold two batches at once.",
            ),
            _ => None,
        }
    }
}

impl Explain<Delivery> for ViolationKind {
    kit::common_kinds!(Polled);

    fn explain(&self, during: &Delivery, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.open(during, f)?;
        match self {
            ViolationKind::EventsLost {
                lost,
                example,
                next_position,
            } => write!(
                f,
                "{lost} event(s) of the log were never handled (among them {example}), and the \
                 group's committed offset has moved past them, to position {next_position}.\n\
                 A consumer restarts from the committed offset, so no one will ever read those \
                 events again. The offset said \"handled\" before the effects had committed: a \
                 consumer that died or failed in between took the rest of its batch with it. \
                 That is at-most-once delivery.\n{}",
                see("At most once")
            ),
            ViolationKind::OrderDiffers(mismatch) => {
                let Mismatch {
                    order_id,
                    expected,
                    found,
                } = mismatch.as_ref();
                write!(
                    f,
                    "{order_id} ended {found}; handling every event of the log exactly once, in \
                 order, leaves it {expected}.\n\
                 Some event's effect was applied more than once, or lost, or only in part: the \
                 offset and the effects it covers did not commit as one.\n{}",
                    see("Two commits, and a crash between them")
                )
            }
            ViolationKind::AppliedOutOfOrder(mismatch) => {
                let Mismatch {
                    order_id,
                    expected,
                    found,
                } = mismatch.as_ref();
                write!(
                    f,
                    "{order_id} ended {found}; handling the log's events in the log's order leaves \
                 it {expected}, and {found} is what its verdicts make of it in another order.\n\
                 The log keeps its events in order, and a later verdict for an order (a \
                 contradicting one, say) must not overtake an earlier one. Two consumers of the \
                 group handled parts of the log at the same time, and the later part committed \
                 first: the group's consumers must take turns, one batch after another, as a \
                 partition has one consumer per group at a time.\n{}",
                    see("Consumers of one group")
                )
            }
            ViolationKind::OffsetPastTheEnd {
                next_position,
                last,
            } => write!(
                f,
                "the group's committed offset is {next_position}, but the log ends at position \
                 {last}: the events the producer appends next will be skipped. The offset must \
                 point just after the last event the poll actually took, however many it asked \
                 for.\n{}",
                see("Where the offset points")
            ),
            ViolationKind::TakenTwice { taken, positions } => write!(
                f,
                "the polls that succeeded reported {taken} events handled, but the log holds \
                 {positions}: some event was taken again by a later poll, although the poll \
                 that took it first did not fail. The offset a successful poll commits must \
                 point just after the last position it took; positions are handed out, not \
                 counted, and a gap in them (a producer's insert that rolled back) leaves an \
                 offset moved on by the number of events taken short of that.\n{}",
                see("Where the offset points")
            ),
            ViolationKind::NotCaughtUp {
                next_position,
                last,
                polls,
            } => write!(
                f,
                "after {polls} poll(s) the group's committed offset is {next_position}, short of \
                 the log's end at position {last}, and polling took no more events. A consumer \
                 that stops short of the end leaves its group behind for good.\n{}",
                see("Where the offset points")
            ),
            ViolationKind::MovedAnotherGroup { group, from, to } => write!(
                f,
                "the offset of the group {group:?}, which no consumer in this test polled as, \
                 moved from {from} to {to}. Its own service reads the same log and has handled \
                 none of those events; from its next poll on, it skips them: they are lost to \
                 it. A poll moves its own group's offset, and no other.\n{}",
                see("Other groups of the log")
            ),
            ViolationKind::LostOnTheBroker {
                lost,
                example,
                on_the_broker,
                stored,
            } => {
                let at = |offset: &Option<i64>| match offset {
                    Some(offset) => format!("at {offset}"),
                    None => "none".to_string(),
                };
                write!(
                    f,
                    "{lost} verdict(s) of the partition were never handled (among them {example}). \
                     The group's offset for the partition is {} on the broker, and {} in \
                     partition_offsets, beside the effects.\n\
                     A consumer that the group assigns the partition starts where its offset \
                     says, so no one will read those verdicts again: an offset said \"handled\" \
                     before their effects had committed, and the consumer that died took the \
                     rest of its batch with it. That is at-most-once delivery, with Kafka's \
                     commitSync() as with a table.\n{}",
                    at(on_the_broker),
                    at(stored),
                    see("On a Kafka broker")
                )
            }
            ViolationKind::OffsetWentBack { from, to, zombie } => write!(
                f,
                "the offset stored with the effects went back from {from} to {to}: the consumer \
                 that woke up with {zombie} committed its batch after the partition had been \
                 given to another consumer, which had gone on past it.\n\
                 Nothing was applied twice here only because `handle` recognised each verdict's \
                 id; but the group will now read every record from {to} on again, and an effect \
                 without such a key would be applied twice. A batch is the next one only if the \
                 stored offset, read under the row's lock, is where the batch starts.\n{}",
                see("On a Kafka broker")
            ),
            ViolationKind::ConsumerStopped { why } => write!(
                f,
                "the consumer that took over the partition stopped before it had read it to the \
                 end: {why}\n{}",
                see("On a Kafka broker")
            ),
            ViolationKind::Common(common) => common.explain::<Self>(f),
        }
    }
}
