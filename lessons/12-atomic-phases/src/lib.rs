//! Lesson 12: a charge at a provider, between atomic phases.
//!
//! Lesson 11's payment API, unchanged, in front of a handler whose effect is a charge at a card
//! provider: another company's API, which no transaction of ours can take back. The handler
//! (`create_payment`) and the completer (`complete`), written by the student, must charge once
//! per key whatever the provider does (fail, charge and hang up, be slow), whoever dies between
//! the phases, and however many retries arrive. This crate is written once and run against the
//! exercise and the solution:
//!
//! - [`provider`]: the card provider, a second HTTP API whose ledger the tests read;
//! - [`Attempt`]: what the handler is given for one request, and the API's [`Clock`];
//! - [`Http`]: the handler behind lesson 11's API, as the kit's scripts call it;
//! - [`scenarios`]: the stories, each judged by one rule (judge.rs), worded in [`Violation`];
//!   the scripted ones specs (`specs/`), all of them listed by [`Lesson`], the kit's contract,
//!   and played against the API in front of the handlers ([`api`]).

mod attempt;
pub mod by_hand;
mod charges;
mod http;
mod judge;
mod lesson;
pub mod provider;
pub mod scenarios;
mod violation;

pub use attempt::{Attempt, Clock, LEASE};
pub use charges::show_charge;
pub use http::{Completion, Handler, Handlers, Http, Outcome, Request, Step};
pub use lesson::{Api, Lesson, api};
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
