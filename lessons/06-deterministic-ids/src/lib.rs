//! Lesson 06: deterministic ids upstream.
//!
//! The payment step of the order saga consumes `order.created`, at least once and sometimes
//! more, charges the customer's card through a card network, and announces
//! `payment.succeeded` or `payment.failed` to the saga through its outbox. The handler
//! (`take_payment`, written by the student) must charge once and announce under one id, however
//! often the order arrives. This crate is written once and run against the exercise and the
//! solution:
//!
//! - [`OrderCreated`] and [`Outcome`]: what a handler receives and what it reports;
//! - [`charge_card`] and [`announce`]: the card network and the outbox, given, so that
//!   handlers are about the ids they hand them;
//! - [`scenarios`]: the tests, each a story from chapter 6, most of them specs (`specs/`), all
//!   of them listed by [`Lesson`], the kit's contract;
//! - [`Violation`]: what a scenario caught, worded to teach;
//! - [`deliver`]: events typed or piped in by hand (`cargo workbook deliver 06`).

pub mod by_hand;
mod event;
mod judge;
mod lesson;
mod network;
pub mod scenarios;
mod step;
mod subject;
mod violation;

pub use event::{DECLINED_CARD, DEFAULT_CARD, EventError, OrderCreated, Outcome};
pub use lesson::Lesson;
pub use network::{Charge, announce, charge_card};
pub use subject::{Handler, Subject};
pub use violation::{Delivery, FailureCause, Violation, ViolationKind};

#[doc(hidden)]
pub mod __private {
    pub use crate::subject::BASE_MIGRATIONS;
    pub use kit;
}
