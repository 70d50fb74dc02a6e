//! Lesson 09: retention of the dedupe table.
//!
//! Lesson 01's ledger credits an account once per event, and remembers every event it applied
//! in `processed_events`. Left alone, that table grows for as long as the service runs. The
//! student writes `prune`, the job that forgets what no redelivery can need any more, and the
//! exercise's migration, which partitions the table by day. This crate is written once and run
//! against the exercise and the solution:
//!
//! - [`handle`], [`Delivered`], [`Prune`] and the window's constants: what the student is given;
//! - [`scenarios`]: the tests, each a story from chapter 9, the scripted ones specs (`specs/`),
//!   all of them listed by [`Lesson`], the kit's contract;
//! - [`Violation`]: what a scenario caught, worded to teach;
//! - [`deliver`]: credits and prunes typed by hand (`cargo workbook deliver 09`).

pub mod by_hand;
mod clock;
mod credit;
mod judge;
mod ledger;
mod lesson;
pub mod scenarios;
mod subject;
mod violation;

pub use clock::{BATCH_LIMIT, Prune, Pruned, REDELIVERY_WINDOW, RETENTION_LIMIT};
pub use credit::{Credit, Delivered, Outcome, handle};
pub use kit::Fault;
pub use lesson::Lesson;
pub use subject::{Handler, Subject};
pub use violation::{Delivery, FailureCause, Forgotten, Violation, ViolationKind};

#[doc(hidden)]
pub mod __private {
    pub use crate::subject::BASE_MIGRATIONS;
    pub use kit;
}
