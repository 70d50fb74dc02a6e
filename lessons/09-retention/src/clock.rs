//! What the prune is told, and the promises it is written against. Time is a parameter, never
//! the database's `now()`: a test moves the clock by days without waiting for them.

use chrono::{DateTime, TimeDelta, Utc};

// ANCHOR: window
/// The broker's promise: every copy of an event arrives at most this long after the first copy
/// did, that moment included. A row of `processed_events` is needed until then, and not after.
pub const REDELIVERY_WINDOW: TimeDelta = TimeDelta::days(3);

/// The table's budget: once a prune has run, no row older than this is left. Between the
/// window and this limit, how long to keep a row is the prune's choice.
pub const RETENTION_LIMIT: TimeDelta = TimeDelta::days(4);

/// The most rows one transaction of the prune may delete.
pub const BATCH_LIMIT: i64 = 1_000;
// ANCHOR_END: window

/// One run of the prune, at `now`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prune {
    now: DateTime<Utc>,
}

impl Prune {
    pub fn at(now: DateTime<Utc>) -> Prune {
        Prune { now }
    }

    /// The time the prune runs at, as the clock of the process running it says.
    pub fn now(&self) -> DateTime<Utc> {
        self.now
    }
}

/// What one run of the prune did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pruned {
    /// How many rows of `processed_events` it deleted.
    pub rows: u64,
}
