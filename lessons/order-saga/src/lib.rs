//! Lessons 02 to 05: the order saga's payment-result handler and its three guards.
//!
//! An order waits in `pending` for the payment service's verdict, which arrives as an event,
//! at least once and sometimes more. The handler (`apply_payment_result`, written by the
//! student in each exercise) must move the order once, to the right terminal status, and
//! announce it once through the outbox. This crate is written once and run against every
//! exercise and solution of the four lessons:
//!
//! - [`PaymentEvent`] and [`Outcome`]: what a handler receives and what it reports;
//! - [`apply_to_order`] and [`enqueue`]: the effect, given, so that handlers are about guards;
//! - [`scenarios`]: the tests, each a story from the book, the scripted ones specs (`specs/`);
//!   [`Lesson`], the kit's contract, plays them, each lesson `Lesson<N>` the ones it picks;
//! - [`Violation`]: what a scenario caught, worded to teach;
//! - [`deliver`]: events typed or piped in by hand (`cargo workbook deliver 05`).

pub mod by_hand;
mod effect;
mod event;
mod judge;
mod lesson;
mod orders;
mod picks;
pub mod scenarios;
mod subject;
mod violation;

pub use effect::{OrderEvent, apply_to_order, enqueue};
pub use event::{EventError, Outcome, PaymentEvent, PaymentResult};
pub use lesson::Lesson;
pub use scenarios::Mix;
pub use subject::{Handler, Subject};
pub use violation::{Delivery, FailureCause, Violation, ViolationKind};

#[doc(hidden)]
pub mod __private {
    pub use crate::subject::BASE_MIGRATIONS;
    pub use kit;
}
