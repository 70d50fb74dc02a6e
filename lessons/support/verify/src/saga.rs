//! What the order-saga lessons (02 to 05) share in their checks: a subject for any saga handler,
//! and how `cargo repeat` reads a saga test's round.

use std::future::Future;

use order_saga::{Delivery, Handler, Subject, Violation, ViolationKind, scenarios};

use crate::probe::{self, Probe, Side};

/// A subject for a saga handler (a wrong fix, say) on the saga's schema.
pub fn subject<H: Handler>(handler: &H) -> Subject<H> {
    Subject::new([order_saga::__private::BASE_MIGRATIONS], handler.clone())
}

/// A saga lesson's tests that `repeat` names, as probes: see [`probe::probes_of`].
pub fn probes<Fut>(
    tests: &'static [&'static str],
    cases: &'static [(&'static str, &'static str)],
    repeat: &[&str],
    run: fn(&'static str, Side) -> Fut,
    intended: fn(&ViolationKind) -> bool,
) -> Vec<Probe>
where
    Fut: Future<Output = Result<(), Violation>> + 'static,
{
    probe::probes_of(
        tests,
        cases,
        repeat,
        scenarios::barrier_rounds,
        run,
        intended,
        Delivery::round,
    )
}
