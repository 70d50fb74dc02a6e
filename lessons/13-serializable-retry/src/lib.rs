//! Lesson 13: isolation levels, and retrying the whole transaction.
//!
//! A card issuer approves authorizations against a credit limit that a customer's cards share.
//! The rule reads rows an authorization does not write (the other cards), so the handler
//! (`authorize`, written by the student) runs at SERIALIZABLE, where PostgreSQL aborts one of
//! two transactions that could not have run one after the other, with 40001. The student's part
//! is what follows the abort: run the whole transaction again, a bounded number of times, with
//! a backoff, and report how many attempts it took. This crate is written once and run against
//! the exercise and the solution:
//!
//! - [`Authorization`], [`Handled`] and [`Outcome`]: what a handler receives and reports;
//! - [`backoff`]: the wait between attempts, given to the student;
//! - [`anomalies`]: the lost update, read skew and write skew, played at each isolation level;
//! - [`scenarios`]: the tests, each a story from chapter 13, the races among them specs
//!   (`specs/`), the others in Rust, all of them listed by [`Lesson`], the kit's contract;
//! - [`Violation`]: what a scenario caught, worded to teach;
//! - [`by_hand`]: authorizations typed or piped in by hand (`cargo workbook deliver 13`).

pub mod anomalies;
mod backoff;
pub mod by_hand;
mod cards;
mod event;
mod judge;
mod lesson;
pub mod scenarios;
mod subject;
mod violation;

pub use backoff::backoff;
pub use event::{Authorization, EventError, Handled, Outcome};
pub use lesson::Lesson;
pub use subject::{Handler, Subject};
pub use violation::{Delivery, FailureCause, MOST_ATTEMPTS, Violation, ViolationKind};

#[doc(hidden)]
pub mod __private {
    pub use crate::subject::BASE_MIGRATIONS;
    pub use kit;
}
