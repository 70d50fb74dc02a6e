//! Lesson 08: the outbox relay and the consumer's inbox.
//!
//! A producer writes announcements to its outbox (lesson 05); a relay publishes the committed
//! rows to a broker; a consumer, the warehouse, ships an order for each message. The student
//! writes the relay (`relay`) and the consumer (`consume`), which `run` dispatches to. The relay
//! must publish every row at least once, even when rows commit out of the order of their ids and
//! relays crash; the consumer must apply each row once, however often it is published. This
//! crate is written once and run against the exercise and the solution:
//!
//! - [`Step`], [`publish`], [`ship`]: what the pipeline is given;
//! - [`scenarios`]: the tests, each a story from chapter 8, the scripted ones specs (`specs/`),
//!   all of them listed by [`Lesson`], the kit's contract;
//! - [`Violation`]: what a scenario caught, worded to teach;
//! - [`deliver`]: announcements written and carried through by hand (`cargo workbook deliver 08`);
//! - [`kafka`] (feature `kafka`): the same pipeline with a Kafka topic for the broker.

pub mod by_hand;
mod judge;
#[cfg(feature = "kafka")]
pub mod kafka;
mod lesson;
mod pipeline;
pub mod scenarios;
mod subject;
mod violation;
mod world;

pub use lesson::Lesson;
pub use pipeline::{Done, Message, OutboxRow, Outcome, Relay, Step, publish, ship};
pub use subject::{Handler, Subject};
pub use violation::{Delivery, FailureCause, Violation, ViolationKind};

#[doc(hidden)]
pub mod __private {
    pub use crate::subject::BASE_MIGRATIONS;
    pub use kit;
}
