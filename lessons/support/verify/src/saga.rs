//! What the order-saga lessons (02 to 05) share in their checks: a subject for any saga handler,
//! and how `cargo repeat` reads a saga test's round.

use order_saga::{Handler, Subject};

/// A subject for a saga handler (a wrong fix, say) on the saga's schema.
pub fn subject<H: Handler>(handler: &H) -> Subject<H> {
    Subject::new([order_saga::__private::BASE_MIGRATIONS], handler.clone())
}

/// What each saga lesson's `checks.rs` would otherwise write four times over: the shipped
/// exercise and the solution as subjects (`$exercise` and `$solution` are the modules build.rs
/// compiles them into), its `BREAK` entry, and what every lesson's checks write alike
/// (`lesson_checks::lesson!`). The lesson keeps what is its own: `is_intended` (its reason) and
/// its tests.
macro_rules! lesson {
    ($number:literal, $n:literal, $exercise:ident, $solution:ident) => {
        $crate::lesson_checks::lesson!(
            $number, order_saga,
            rounds: order_saga::scenarios::barrier_rounds, round: order_saga::Delivery::round,
            schema(_crate_migrations): [order_saga::__private::BASE_MIGRATIONS],
        );

        /// The exercise as shipped.
        pub fn exercise() -> order_saga::Subject<impl order_saga::Handler> {
            order_saga::subject!(crate::$exercise::apply_payment_result)
        }

        pub fn solution() -> order_saga::Subject<impl order_saga::Handler> {
            order_saga::subject!(crate::$solution::apply_payment_result)
        }

        $crate::breaking::breakable!($number, lesson order_saga::Lesson<$n>);
    };
}
pub(crate) use lesson;
