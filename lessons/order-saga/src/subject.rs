use crate::{Outcome, PaymentEvent};

/// The schema every saga crate runs on. The saga lessons change handlers, not tables.
#[doc(hidden)]
pub const BASE_MIGRATIONS: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/order_saga");

/// The saga lessons' handlers: `apply_payment_result(&PgPool, &PaymentEvent)`, adapted by
/// [`subject!`] to the kit's [`kit::Handler`] shape.
pub trait Handler: kit::Handler<PaymentEvent, Output = Result<Outcome, sqlx::Error>> {}

impl<H> Handler for H where H: kit::Handler<PaymentEvent, Output = Result<Outcome, sqlx::Error>> {}

/// A handler with the schema it runs on.
pub type Subject<H> = kit::Subject<H>;

/// `subject!(handler::apply_payment_result)`: the handler of the crate being tested, on the
/// order-saga schema.
#[macro_export]
macro_rules! subject {
    ($handler:path) => {
        $crate::__private::kit::subject!(
            $crate::PaymentEvent,
            $handler,
            [$crate::__private::BASE_MIGRATIONS]
        )
    };
}
