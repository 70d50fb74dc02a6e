//! Lesson 01: *check-then-act* versus a primary key.
//!
//! An event credits an account. It may be delivered many times, to many workers at once; the
//! account must be credited once. This crate is the lesson itself, written once and run
//! against both `exercises/01-check-then-act` and `solutions/01-check-then-act`:
//!
//! - [`CreditEvent`] and [`Outcome`]: what a handler receives and what it reports;
//! - [`scenarios`]: the tests, each a story from chapter 1 of the book, most of them specs
//!   (`specs/`), the others in Rust, all of them listed by [`Lesson`], the kit's contract;
//! - [`Violation`]: what a scenario caught, worded to teach.

pub mod by_hand;
mod event;
mod judge;
mod ledger;
mod lesson;
pub mod scenarios;
mod subject;
mod violation;

pub use event::{CreditEvent, EventError, Outcome};
pub use lesson::Lesson;
pub use subject::{Handler, Subject};
pub use violation::{Delivery, Violation, ViolationKind};

#[doc(hidden)]
pub mod __private {
    pub use crate::subject::BASE_MIGRATIONS;
    pub use kit;
}
