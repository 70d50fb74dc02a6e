//! Lesson 07: at-least-once delivery, exactly-once effect.
//!
//! The saga's payment verdicts arrive through a log kept in PostgreSQL: an append-only table of
//! events and, per consumer group, a committed offset, as a Kafka partition and its consumer
//! group keep them. The student writes `poll`: read the next events after the group's offset,
//! handle them, and move the offset. Where the transactions begin and end decides whether a
//! consumer that dies loses events, applies them twice, or neither. This crate is written once
//! and run against the exercise and the solution:
//!
//! - [`Poll`], [`Polled`], [`read_batch`] and [`handle`]: what a consumer is given;
//! - [`scenarios`]: the tests, each a story from chapter 7, and the soak, the scripted ones
//!   specs (`specs/`), all of them listed by [`Lesson`], the kit's contract;
//! - [`Violation`]: what a scenario caught, worded to teach;
//! - [`deliver`]: verdicts appended and consumed by hand (`cargo workbook deliver 07`);
//! - `kafka` (with `--features kafka`): the same lesson on a real Kafka-protocol broker.

pub mod by_hand;
mod consumer;
mod judge;
#[cfg(feature = "kafka")]
pub mod kafka;
mod lesson;
mod log;
pub mod scenarios;
mod subject;
mod violation;

pub use consumer::{Logged, Poll, Polled, handle, read_batch};
pub use lesson::Lesson;
pub use subject::{Handler, Subject};
pub use violation::{Delivery, FailureCause, Mismatch, Violation, ViolationKind};

#[doc(hidden)]
pub mod __private {
    pub use crate::subject::BASE_MIGRATIONS;
    pub use kit;
    pub use sqlx::{self, PgPool};
}
