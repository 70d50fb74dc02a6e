//! What lesson 12's handler is given for one request: the request as lesson 11's API accepted
//! it, the provider to charge, and the time by the API's clock.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, TimeDelta, Utc};
use http_keys::PaymentRequest;

use crate::provider::ProviderClient;

/// How long a request may work on its key before anyone else may take it over (the lease,
/// measured by the API's clock).
pub const LEASE: TimeDelta = TimeDelta::seconds(30);

/// One request's attempt at its payment.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub request: PaymentRequest,
    pub provider: ProviderClient,
    /// When the API received the request, by its clock: leases are measured by it, so that a
    /// test moves time past a lease instead of waiting for it.
    pub now: DateTime<Utc>,
}

/// The API's clock: the system's time, moved forward by what a test asked.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    ahead: Arc<Mutex<TimeDelta>>,
}

impl Clock {
    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + *self.ahead.lock().expect("the clock")
    }

    /// Moves the clock `by` forward, for every request after this.
    pub fn advance(&self, by: TimeDelta) {
        *self.ahead.lock().expect("the clock") += by;
    }
}
