//! Lesson 03's subjects and fault tests, as the checks run them.

use order_saga::{Handler, Subject, ViolationKind, subject};

use crate::Lesson;
use crate::probe::Probe;
use crate::saga::{self, SagaTest};

pub const LESSON: Lesson = Lesson {
    number: "03",
    probes,
};

/// As shipped: the event is claimed and committed on its own, then applied.
pub fn exercise() -> Subject<impl Handler> {
    subject!(exercise_03::apply_payment_result)
}

pub fn solution() -> Subject<impl Handler> {
    subject!(solution_03::apply_payment_result)
}

pub const RACE_TESTS: [SagaTest; 3] = [
    SagaTest::CrashBeforeTheEffect,
    SagaTest::FirstDiesWhileADuplicateWaits,
    SagaTest::DuplicateRace,
];

/// The record outlives the effect: an event lost, or given up on before it was applied.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(
        kind,
        ViolationKind::LostEvent { .. }
            | ViolationKind::DecidedWithoutWaiting { .. }
            | ViolationKind::RecordedWithoutEffect
    )
}

fn probes() -> Vec<Probe> {
    saga::probes(&RACE_TESTS, exercise, solution, is_intended)
}
