//! Lesson 12 (work in progress): a charge at a provider, between atomic phases.
//!
//! - [`provider`]: the card provider, another company's API, which the handler calls;
//! - [`Attempt`]: what the handler is given for one request, and the API's [`Clock`].

mod attempt;
mod http;
mod judge;
pub mod provider;
pub mod scenarios;
mod violation;

pub use attempt::{Attempt, Clock, LEASE};
pub use http::{Handler, Http, Request};
pub use provider::{Behaviour, Charge, ChargeRequest, ProviderClient, ProviderError};
pub use violation::{Delivery, FailureCause, Violation, ViolationKind};

/// The schema every lesson-12 crate starts from: the provider's ledger and our charges.
#[doc(hidden)]
pub const BASE_MIGRATIONS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../migrations/atomic_phases"
);

/// `subject!(handler::create_payment)`: the handler of the crate being tested, with lesson 12's
/// base schema and that crate's own migrations.
#[macro_export]
macro_rules! subject {
    ($handler:path) => {
        $crate::subject!($handler, env!("CARGO_MANIFEST_DIR"))
    };
    ($handler:path, $crate_dir:expr) => {
        $crate::__private::kit::subject!(
            $crate::Attempt,
            $handler,
            [
                $crate::BASE_MIGRATIONS,
                ::std::path::Path::new($crate_dir).join("migrations"),
            ]
        )
    };
}

#[doc(hidden)]
pub mod __private {
    pub use kit;
}
