//! Lesson 11: an idempotency key is a row, and the response is stored with the effect.
//!
//! A payment API (`POST /payments`, axum, in [`server`]) creates a payment for an authenticated
//! client. Clients retry: a timeout, a dropped connection, a deploy. Each request carries an
//! `Idempotency-Key` the client made up for that one payment, and every retry carries the same
//! one. The handler (`create_payment`, written by the student) must create each payment once
//! per key, whatever retries arrive and however they overlap, answer every retry with the
//! response the first request got, and refuse a key sent again with a different request. This
//! crate is written once and run against the exercise and the solution:
//!
//! - [`PaymentRequest`] and [`Reply`]: what a handler receives and what it replies;
//! - [`Payment`]: the effect, which the handler creates and shows, and which knows of no key;
//! - [`server`]: the API in front of the handler, and what it refuses before the handler runs;
//! - [`scenarios`]: the tests, each a story from chapter 11, over HTTP with a real client, the
//!   scripted ones specs (`specs/`), all of them listed by [`Lesson`], the kit's contract, and
//!   played against the API in front of the handler ([`api`]);
//! - [`Violation`]: what a scenario caught, worded to teach.

pub mod by_hand;
mod expiry;
mod http;
mod judge;
mod lesson;
mod observe;
mod payment;
mod problem;
mod request;
mod resource;
pub mod scenarios;
pub mod serve;
pub mod server;
mod subject;
mod violation;

pub use expiry::{BATCH_LIMIT, KEY_WINDOW, expire_keys};
pub use http::{Answer, Call, Http, ServerError, answered, describe as describe_answer, send};
pub use lesson::{Api, Lesson, api};
pub use payment::Payment;
pub use request::{MAX_KEY_CHARS, NewPayment, PaymentRequest, Reply, Stored, check_key};
pub use resource::{ShowPayment, Showing, from_payments};
pub use subject::{Handler, Subject};
pub use violation::{Delivery, FailureCause, Field, Kept, Violation, ViolationKind};

#[doc(hidden)]
pub mod __private {
    pub use crate::subject::BASE_MIGRATIONS;
    pub use kit;
}
