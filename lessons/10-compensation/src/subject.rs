use crate::{Outcome, ReservationEvent};

/// The schema every lesson-10 crate runs on. The lesson changes a handler, not tables.
#[doc(hidden)]
pub const BASE_MIGRATIONS: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/compensation");

/// Lesson 10's handlers: `settle_reservation(&PgPool, &ReservationEvent)`, adapted by
/// [`subject!`] to the kit's [`kit::Handler`] shape.
pub trait Handler: kit::Handler<ReservationEvent, Output = Result<Outcome, sqlx::Error>> {}

impl<H> Handler for H where H: kit::Handler<ReservationEvent, Output = Result<Outcome, sqlx::Error>> {}

/// A handler with the schema it runs on.
pub type Subject<H> = kit::Subject<H>;

/// `subject!(handler::settle_reservation)`: the handler of the crate being tested, on the
/// inventory's schema.
#[macro_export]
macro_rules! subject {
    ($handler:path) => {
        $crate::__private::kit::subject!(
            $crate::ReservationEvent,
            $handler,
            [$crate::__private::BASE_MIGRATIONS]
        )
    };
}
