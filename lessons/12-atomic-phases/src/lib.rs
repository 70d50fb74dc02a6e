//! Lesson 12 (work in progress): a charge at a provider, between atomic phases.
//!
//! - [`provider`]: the card provider, another company's API, which the handler calls.

pub mod provider;
