use crate::{CreditEvent, Outcome};

/// The base schema every lesson-01 crate starts from.
#[doc(hidden)]
pub const BASE_MIGRATIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/ledger");

/// Lesson 01's handlers: `apply_credit(&PgPool, &CreditEvent)`, adapted by [`subject!`] to the
/// kit's [`kit::Handler`] shape.
pub trait Handler: kit::Handler<CreditEvent, Output = Result<Outcome, sqlx::Error>> {}

impl<H> Handler for H where H: kit::Handler<CreditEvent, Output = Result<Outcome, sqlx::Error>> {}

/// A handler with the schema it was written for.
pub type Subject<H> = kit::Subject<H>;

/// `subject!(handler::apply_credit)`: the handler of the crate being tested, with the ledger
/// schema and that crate's own migrations. A second argument names another crate's directory
/// (the maintainers' checks use it to test the exercise and the solution from one place).
#[macro_export]
macro_rules! subject {
    ($handler:path) => {
        $crate::subject!($handler, env!("CARGO_MANIFEST_DIR"))
    };
    ($handler:path, $crate_dir:expr) => {
        $crate::__private::kit::subject!(
            $crate::CreditEvent,
            $handler,
            [
                $crate::__private::BASE_MIGRATIONS,
                ::std::path::Path::new($crate_dir).join("migrations"),
            ]
        )
    };
}
