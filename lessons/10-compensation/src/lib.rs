//! Lesson 10: compensation, not rollback.
//!
//! The inventory service of the order saga reserved stock when the order was created. Nothing
//! can roll that back once the order fails: the reservation committed long ago, in another
//! service's transaction. What the service can do is act forward: when it hears
//! `payment.failed` or `order.cancelled` it *releases* the reservation (the units go back on
//! the shelf, and `stock.released` is announced), and when it hears `payment.succeeded` it
//! *consumes* it. The handler (`settle_reservation`, written by the student) must settle each
//! reservation once, by whichever event reaches it first, however often and in whatever order
//! the events arrive. This crate is written once and run against the exercise and the solution:
//!
//! - [`ReservationEvent`] and [`Outcome`]: what a handler receives and what it reports;
//! - [`reserve`]: the reservation a release compensates, which may come after it;
//! - [`scenarios`]: the tests, each a story from chapter 10, most of them specs (`specs/`), all
//!   of them listed by [`Lesson`], the kit's contract;
//! - [`Violation`]: what a scenario caught, worded to teach;
//! - [`deliver`]: events typed or piped in by hand (`cargo workbook deliver 10`).

pub mod by_hand;
mod event;
mod inventory;
mod judge;
mod lesson;
mod reserve;
pub mod scenarios;
mod subject;
mod violation;

pub use event::{EventError, Kind, Outcome, ReservationEvent};
pub use lesson::Lesson;
pub use reserve::reserve;
pub use subject::{Handler, Subject};
pub use violation::{Delivery, FailureCause, Violation, ViolationKind};

#[doc(hidden)]
pub mod __private {
    pub use crate::subject::BASE_MIGRATIONS;
    pub use kit;
}
