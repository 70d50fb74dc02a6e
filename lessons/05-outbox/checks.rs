//! Lesson 05's subjects and fault test, as the checks run them.

use order_saga::{Handler, Subject, ViolationKind, subject};

use crate::Lesson;
use crate::probe::Probe;
use crate::saga::{self, SagaTest};

pub const LESSON: Lesson = Lesson {
    number: "05",
    probes,
};

/// As shipped: the status change commits, then the outbox row is written on its own.
pub fn exercise() -> Subject<impl Handler> {
    subject!(exercise_05::apply_payment_result)
}

pub fn solution() -> Subject<impl Handler> {
    subject!(solution_05::apply_payment_result)
}

pub const RACE_TESTS: [SagaTest; 1] = [SagaTest::CrashBeforeTheOutboxRow];

/// A resolved order nobody is told about.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(kind, ViolationKind::ResolvedSilently { .. })
}

fn probes() -> Vec<Probe> {
    saga::probes(&RACE_TESTS, exercise, solution, is_intended)
}
