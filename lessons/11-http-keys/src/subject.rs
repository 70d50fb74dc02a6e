use crate::{PaymentRequest, Reply};

/// The schema every lesson-11 crate starts from: payments. The idempotency keys table is the
/// crate's own, in its `migrations/`.
#[doc(hidden)]
pub const BASE_MIGRATIONS: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/http_keys");

/// Lesson 11's handlers: `create_payment(&PgPool, &PaymentRequest)`, adapted by [`subject!`] to
/// the kit's [`kit::Handler`] shape. The API (`server.rs`) calls it for every request it
/// accepted.
pub trait Handler: kit::Handler<PaymentRequest, Output = Result<Reply, sqlx::Error>> {}

impl<H> Handler for H where H: kit::Handler<PaymentRequest, Output = Result<Reply, sqlx::Error>> {}

/// A handler with the schema it was written for: payments, and the crate's own keys table.
pub type Subject<H> = kit::Subject<H>;

/// `subject!(handler::create_payment)`: the handler of the crate being tested, with the payments
/// schema and that crate's own migrations. A second argument names another crate's directory
/// (the maintainers' checks use it to test the exercise and the solution from one place).
#[macro_export]
macro_rules! subject {
    ($handler:path) => {
        $crate::subject!($handler, env!("CARGO_MANIFEST_DIR"))
    };
    ($handler:path, $crate_dir:expr) => {
        $crate::__private::kit::subject!(
            $crate::PaymentRequest,
            $handler,
            [
                $crate::__private::BASE_MIGRATIONS,
                ::std::path::Path::new($crate_dir).join("migrations"),
            ]
        )
    };
}
