use crate::{OrderCreated, Outcome};

/// The schema every lesson-06 crate runs on. The lesson changes a handler, not tables.
#[doc(hidden)]
pub const BASE_MIGRATIONS: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/payment_step");

/// Lesson 06's handlers: `take_payment(&PgPool, &OrderCreated)`, adapted by [`subject!`] to the
/// kit's [`kit::Handler`] shape.
pub trait Handler: kit::Handler<OrderCreated, Output = Result<Outcome, sqlx::Error>> {}

impl<H> Handler for H where H: kit::Handler<OrderCreated, Output = Result<Outcome, sqlx::Error>> {}

/// A handler with the schema it runs on.
pub type Subject<H> = kit::Subject<H>;

/// `subject!(handler::take_payment)`: the handler of the crate being tested, on the payment
/// step's schema.
#[macro_export]
macro_rules! subject {
    ($handler:path) => {
        $crate::__private::kit::subject!(
            $crate::OrderCreated,
            $handler,
            [$crate::__private::BASE_MIGRATIONS]
        )
    };
}
