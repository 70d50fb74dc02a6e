//! Lesson 12 (work in progress): a charge at a provider, between atomic phases.
//!
//! - [`provider`]: the card provider, another company's API, which the handler calls;
//! - [`Attempt`]: what the handler is given for one request, and the API's [`Clock`].

mod attempt;
mod http;
pub mod provider;

pub use attempt::{Attempt, Clock};
pub use http::{Handler, Http, Request};
pub use provider::{Behaviour, Charge, ChargeRequest, ProviderClient, ProviderError};
