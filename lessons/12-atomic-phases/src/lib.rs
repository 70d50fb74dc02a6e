//! Lesson 12 (work in progress): a charge at a provider, between atomic phases.
//!
//! - [`provider`]: the card provider, another company's API, which the handler calls;
//! - [`Attempt`]: what the handler is given for one request, and the API's [`Clock`].

mod attempt;
pub mod by_hand;
mod http;
mod judge;
pub mod provider;
pub mod scenarios;
mod violation;

pub use attempt::{Attempt, Clock, LEASE};
pub use http::{Completion, Handler, Handlers, Http, Outcome, Request, Step};
pub use provider::{Behaviour, Charge, ChargeRequest, ProviderClient, ProviderError};
pub use violation::{Delivery, FailureCause, Violation, ViolationKind};

/// A crate's handlers with the schema they were written for.
pub type Subject<H> = kit::Subject<H>;

/// The schema every lesson-12 crate starts from: the provider's ledger and our charges.
#[doc(hidden)]
pub const BASE_MIGRATIONS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../migrations/atomic_phases"
);

/// `subject!(handler)`: the crate `handler`'s `create_payment` and `complete`, with lesson 12's
/// base schema and that crate's own migrations.
#[macro_export]
macro_rules! subject {
    ($crate_name:ident) => {
        $crate::subject!($crate_name, env!("CARGO_MANIFEST_DIR"))
    };
    ($crate_name:ident, $crate_dir:expr) => {
        $crate::__private::kit::Subject::new(
            [
                ::std::path::PathBuf::from($crate::BASE_MIGRATIONS),
                ::std::path::Path::new($crate_dir).join("migrations"),
            ],
            $crate::Handlers {
                pay: |pool: $crate::__private::PgPool, attempt: $crate::Attempt| async move {
                    $crate_name::create_payment(&pool, &attempt).await
                },
                complete: |pool: $crate::__private::PgPool, done: $crate::Completion| async move {
                    $crate_name::complete(&pool, &done).await
                },
            },
        )
    };
}

#[doc(hidden)]
pub mod __private {
    pub use kit;
    pub use sqlx::PgPool;
}
