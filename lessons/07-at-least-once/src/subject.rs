use crate::{Poll, Polled};

/// The schemas every lesson-07 crate runs on: the order saga's, then the log's.
#[doc(hidden)]
pub const BASE_MIGRATIONS: [&str; 2] = [
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/order_saga"),
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/consumer_log"),
];

/// Lesson 07's consumers: `poll(&PgPool, &Poll)`, adapted by [`subject!`] to the kit's
/// [`kit::Handler`] shape.
pub trait Handler: kit::Handler<Poll, Output = Result<Polled, sqlx::Error>> {}

impl<H> Handler for H where H: kit::Handler<Poll, Output = Result<Polled, sqlx::Error>> {}

/// A consumer with the schema it runs on.
pub type Subject<H> = kit::Subject<H>;

/// `subject!(handler::poll)`: the consumer of the crate being tested, on the log's schema.
#[macro_export]
macro_rules! subject {
    ($handler:path) => {
        $crate::__private::kit::subject!(
            $crate::Poll,
            $handler,
            [
                $crate::__private::BASE_MIGRATIONS[0],
                $crate::__private::BASE_MIGRATIONS[1]
            ]
        )
    };
}
