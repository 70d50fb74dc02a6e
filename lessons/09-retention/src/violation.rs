use std::fmt;

use kit::{Calls, Common, Explain, Speaks, Topic, Words};

use crate::ledger::KeyRow;
use crate::{BATCH_LIMIT, Pruned};

pub use kit::FailureCause;

/// An event whose row a prune removed inside the window, and when each step happened.
#[derive(Debug)]
pub struct Forgotten {
    pub event: String,
    pub received: String,
    pub pruned: String,
    pub again: String,
}

kit::violations!(chapter "09");

#[derive(Debug)]
pub enum ViolationKind {
    /// A copy of `event` arrived inside the redelivery window and was credited again: the
    /// prune had removed the event's row before the window closed.
    ForgotTooEarly(Box<Forgotten>),
    /// `processed_events` holds more than one row for `event`, and the event was credited
    /// once per row: the table's unique key tells the copies apart.
    KeyAdmitsTwice { event: String, rows: Vec<KeyRow> },
    /// The event was credited `credits` times with one row left: between two copies the row
    /// was gone (a concurrent scenario, which cannot say when the prune removed it).
    AppliedTwice { event: String, credits: i64 },
    /// After the prune, rows older than the retention limit were still there.
    KeptTooLong {
        rows: i64,
        oldest: String,
        now: String,
    },
    /// One transaction of the prune deleted more rows than the limit.
    TooBigATransaction { rows: i64, transactions: i64 },
    /// The prune waited for a delivery's open transaction.
    PruneWaited { on: String },
    /// The prune reported a count of deleted rows that is not how many it deleted.
    PruneMisreported { reported: u64, deleted: i64 },
    /// The given handler failed on the student's table.
    DeliveryFailed { error: String },
    /// What any lesson can catch: a failed or stuck prune, a hidden failure, a test that could
    /// not run.
    Common(Common<Pruned>),
}

/// How the events and the prunes ran.
#[derive(Debug, Clone, Copy)]
pub enum Delivery {
    /// A scenario's story, in one sentence.
    Story(&'static str),
    /// `workers` tasks released together by a barrier, one pruning and the others delivering,
    /// in round (day) `round` of `rounds`.
    Barrier {
        workers: usize,
        round: usize,
        rounds: usize,
    },
}

impl From<&'static str> for Delivery {
    fn from(story: &'static str) -> Self {
        Delivery::Story(story)
    }
}

/// Lesson 09 releases no spec's workers (its barrier runs the prune beside the deliveries,
/// which a spec's barrier cannot say): a round would be told as that barrier's are.
impl From<kit::Round> for Delivery {
    fn from(round: kit::Round) -> Self {
        Delivery::Barrier {
            workers: round.workers,
            round: round.round,
            rounds: round.rounds,
        }
    }
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
                "{workers} tasks were released together by a barrier, one running the prune and \
                 the others delivering credits, new ones and copies of the last days' (day \
                 {round} of {rounds})"
            ),
        }
    }
}

impl Speaks for ViolationKind {
    const WORDS: Words = Words {
        calls: Calls {
            call: "prune",
            caller: "prune",
            code: "prune",
        },
        aggregate: "credit",
        retrier: "scheduler",
        lost: "no one learns that the table has stopped shrinking",
        reporting_rule: "A prune that did nothing must not say it did.",
        second_process: "a second instance of the service",
    };

    fn see(topic: Topic) -> String {
        match topic {
            Topic::Reporting | Topic::Failed(_) => see("A prune that fails must say so"),
            Topic::OneProcess | Topic::Neighbours => see("The prune must not wait for deliveries"),
        }
    }

    /// A prune is maintenance, run beside every delivery: what each abort means for it.
    fn meaning(cause: FailureCause) -> Option<&'static str> {
        Some(match cause {
            FailureCause::Serialization => {
                "The prune runs at REPEATABLE READ or SERIALIZABLE, where the database aborts \
                 one of two conflicting transactions instead of letting the second wait. A \
                 prune is maintenance, run beside every delivery: at a stricter level, each such \
                 abort is a prune that did not happen, unless it retries."
            }
            FailureCause::Deadlock => {
                "The prune and another transaction each waited on a lock the other held, and \
                 PostgreSQL aborted one of them (SQLSTATE 40P01)."
            }
            _ => {
                "A prune that fails leaves the table to grow until someone notices. The \
                 SQLSTATE says what the database refused."
            }
        })
    }
}

impl Explain<Delivery> for ViolationKind {
    kit::common_kinds!(Pruned);

    fn explain(&self, during: &Delivery, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.open(during, f)?;
        match self {
            ViolationKind::ForgotTooEarly(forgotten) => write!(
                f,
                "{} was credited twice. It was first received at {}; the prune at {} removed \
                 its row from processed_events, and a copy that arrived at {} found nothing \
                 and was applied again.\n\
                 The broker may send a copy of an event until the redelivery window has passed \
                 since the event was received, and only the row says the event was applied. A \
                 row removed before then turns the next copy into a new event.\n{}",
                forgotten.event,
                forgotten.received,
                forgotten.pruned,
                forgotten.again,
                see("How long a key is needed")
            ),
            ViolationKind::KeyAdmitsTwice { event, rows } => {
                let shown: Vec<String> = rows
                    .iter()
                    .map(|row| {
                        format!(
                            "(received_on {}, occurred_on {})",
                            row.received_on, row.occurred_on
                        )
                    })
                    .collect();
                write!(
                    f,
                    "{event} was credited {} times, and processed_events holds {} rows for it: \
                     {}.\n\
                     ON CONFLICT DO NOTHING only skips a row its unique key says exists \
                     already. These rows differ in a column of the key, so to the table each \
                     copy was a new event. A copy that arrives on another day than the first \
                     must still collide with the first one's row.\n{}",
                    rows.len(),
                    rows.len(),
                    shown.join(", "),
                    see("Partitioning, and the key it costs")
                )
            }
            ViolationKind::AppliedTwice { event, credits } => write!(
                f,
                "{event} was credited {credits} times (expected once), and processed_events \
                 holds at most one row for it now. Between two of its copies the row was gone, and \
                 only the prune deletes from the table: a copy arrived after the prune had \
                 removed the row, found nothing, and was applied again.\n\
                 The broker may send a copy of an event until the redelivery window has passed \
                 since the event was received, and only the row says the event was applied.\n{}",
                see("How long a key is needed")
            ),
            ViolationKind::KeptTooLong { rows, oldest, now } => write!(
                f,
                "after the prune at {now}, processed_events still holds {rows} row(s) received \
                 more than {} days before, the oldest at {oldest}.\n\
                 No copy of those events can arrive any more, so their rows protect nothing, \
                 and a table that keeps them grows for as long as the service runs: every \
                 insert's index lookup, every backup and every vacuum pays for it.\n{}",
                crate::RETENTION_LIMIT.num_days(),
                see("How long a key is needed")
            ),
            ViolationKind::TooBigATransaction { rows, transactions } => write!(
                f,
                "one transaction of the prune deleted {rows} rows of processed_events (at most \
                 {BATCH_LIMIT} expected; the prune used {transactions} transaction(s) in all).\n\
                 A DELETE holds a lock on every row it removes until its transaction ends, and \
                 on a real backlog one that takes everything at once runs for minutes: all that \
                 time vacuum can reclaim nothing the transaction might still see, a cancel or \
                 a crash throws all of its work away, and a logical replica applies it in one \
                 piece, at its commit.\n{}",
                see("What one big DELETE holds")
            ),
            ViolationKind::PruneMisreported { reported, deleted } => write!(
                f,
                "the prune reported that it deleted {reported} row(s) of processed_events, but \
                 {deleted} row(s) were gone once it returned, and nothing else ran.\n\
                 The count is all its scheduler and its dashboards learn of a run: a prune that \
                 says 0 while it deletes, or counts one batch of many, hides how far behind it \
                 is, and a table that stops shrinking looks like one with nothing to remove.\n{}",
                see("A prune that fails must say so")
            ),
            ViolationKind::PruneWaited { on } => write!(
                f,
                "the prune had to wait for {on}, a delivery whose transaction was still open: \
                 it was seen waiting on a lock. That delivery had only inserted a new event's \
                 row, which no prune has any business with, so the prune locks more than the \
                 rows it removes (the whole table, or a partition). While it waits, every \
                 delivery that comes after queues behind it.\n{}",
                see("The prune must not wait for deliveries")
            ),
            ViolationKind::DeliveryFailed { error } => write!(
                f,
                "the ledger's handler (given, and correct) failed on processed_events as your \
                 migration defines it: {error}\n\
                 The handler writes event_id, occurred_on, received_on and received_at, and \
                 relies on a unique key to recognise a copy; the SQLSTATE says what the table \
                 refused.\n{}",
                see("Partitioning, and the key it costs")
            ),
            ViolationKind::Common(common) => common.explain::<Self>(f),
        }
    }
}
