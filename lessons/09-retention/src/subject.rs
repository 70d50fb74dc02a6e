use crate::{Prune, Pruned};

/// The base schema every lesson-09 crate starts from; `processed_events` is the crate's own.
#[doc(hidden)]
pub const BASE_MIGRATIONS: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/retention");

/// Lesson 09's prunes: `prune(&PgPool, &Prune)`, adapted by [`subject!`] to the kit's
/// [`kit::Handler`] shape.
pub trait Handler: kit::Handler<Prune, Output = Result<Pruned, sqlx::Error>> {}

impl<H> Handler for H where H: kit::Handler<Prune, Output = Result<Pruned, sqlx::Error>> {}

/// A prune with the schema it was written for: the ledger, and the crate's own
/// `processed_events`.
pub type Subject<H> = kit::Subject<H>;

/// `subject!(handler::prune)`: the prune of the crate being tested, with the ledger's schema
/// and that crate's own migrations. A second argument names another crate's directory (the
/// maintainers' checks use it to test the exercise and the solution from one place).
#[macro_export]
macro_rules! subject {
    ($handler:path) => {
        $crate::subject!($handler, env!("CARGO_MANIFEST_DIR"))
    };
    ($handler:path, $crate_dir:expr) => {
        $crate::__private::kit::subject!(
            $crate::Prune,
            $handler,
            [
                $crate::__private::BASE_MIGRATIONS,
                ::std::path::Path::new($crate_dir).join("migrations"),
            ]
        )
    };
}
