//! Lesson 02's subjects and race tests, as the checks run them.

use order_saga::{Handler, Mix, Subject, ViolationKind, subject};

use crate::Lesson;
use crate::probe::Probe;
use crate::saga::{self, SagaTest};

pub const LESSON: Lesson = Lesson {
    number: "02",
    probes,
};

/// As shipped: a pre-check decides, and the insert's answer is ignored.
pub fn exercise() -> Subject<impl Handler> {
    subject!(exercise_02::apply_payment_result)
}

pub fn solution() -> Subject<impl Handler> {
    subject!(solution_02::apply_payment_result)
}

pub const RACE_TESTS: [SagaTest; 4] = {
    let [two, eight, thirty_two] = saga::barriers(Mix::SameEvent);
    [SagaTest::DuplicateRace, two, eight, thirty_two]
};

/// One event, announced more than once.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(kind, ViolationKind::ResolvedTwice { .. })
}

fn probes() -> Vec<Probe> {
    saga::probes(&RACE_TESTS, exercise, solution, is_intended)
}
