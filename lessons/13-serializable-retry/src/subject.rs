use crate::{Authorization, Handled};

/// The schema every lesson-13 crate runs on. The lesson changes a handler, not tables.
#[doc(hidden)]
pub const BASE_MIGRATIONS: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/card_limits");

/// Lesson 13's handlers: `authorize(&PgPool, &Authorization)`, adapted by [`subject!`] to the
/// kit's [`kit::Handler`] shape.
pub trait Handler: kit::Handler<Authorization, Output = Result<Handled, sqlx::Error>> {}

impl<H> Handler for H where H: kit::Handler<Authorization, Output = Result<Handled, sqlx::Error>> {}

/// A handler with the schema it runs on.
pub type Subject<H> = kit::Subject<H>;

/// `subject!(handler::authorize)`: the handler of the crate being tested, on the card issuer's
/// schema.
#[macro_export]
macro_rules! subject {
    ($handler:path) => {
        $crate::__private::kit::subject!(
            $crate::Authorization,
            $handler,
            [$crate::__private::BASE_MIGRATIONS]
        )
    };
}
