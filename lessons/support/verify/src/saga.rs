//! The order-saga lessons' race and fault tests, as `cargo repeat` and the checks run them.

use order_saga::{Delivery, Handler, Mix, Subject, Violation, ViolationKind, scenarios};

use crate::probe::{self, Probe, Side, Verdict};

/// One of the saga's race or fault tests.
#[derive(Debug, Clone, Copy)]
pub enum SagaTest {
    DuplicateRace,
    FirstDiesWhileADuplicateWaits,
    CrashBeforeTheEffect,
    CrashBeforeTheOutboxRow,
    CancelledThenRedelivered,
    ContradictingRace,
    ContradictingRacePastAReader,
    Barrier { mix: Mix, workers: usize },
}

impl SagaTest {
    pub fn name(&self) -> String {
        match self {
            SagaTest::DuplicateRace => "forced: duplicate vs. uncommitted".into(),
            SagaTest::FirstDiesWhileADuplicateWaits => "fault: first dies, duplicate waits".into(),
            SagaTest::CrashBeforeTheEffect => "fault: crash before the change".into(),
            SagaTest::CrashBeforeTheOutboxRow => "fault: crash before the outbox row".into(),
            SagaTest::CancelledThenRedelivered => "fault: cancelled, then redelivered".into(),
            SagaTest::ContradictingRace => "forced: contradicting events".into(),
            SagaTest::ContradictingRacePastAReader => "forced: contradicting, past a reader".into(),
            SagaTest::Barrier { workers, .. } => format!("barrier, {workers} workers"),
        }
    }

    pub fn rounds(&self) -> usize {
        match self {
            SagaTest::Barrier { workers, .. } => scenarios::barrier_rounds(*workers),
            _ => 1,
        }
    }

    pub async fn run<H: Handler>(self, subject: Subject<H>) -> Result<(), Violation> {
        match self {
            SagaTest::DuplicateRace => {
                scenarios::duplicate_races_an_uncommitted_delivery(subject).await
            }
            SagaTest::FirstDiesWhileADuplicateWaits => {
                scenarios::first_delivery_dies_while_a_duplicate_waits(subject).await
            }
            SagaTest::CrashBeforeTheEffect => {
                scenarios::crash_before_the_effect_then_redelivery(subject).await
            }
            SagaTest::CrashBeforeTheOutboxRow => {
                scenarios::crash_before_the_outbox_row_then_redelivery(subject).await
            }
            SagaTest::CancelledThenRedelivered => {
                scenarios::cancelled_delivery_then_redelivery(subject).await
            }
            SagaTest::ContradictingRace => scenarios::contradicting_events_race(subject).await,
            SagaTest::ContradictingRacePastAReader => {
                scenarios::contradicting_events_race_past_a_reader(subject).await
            }
            SagaTest::Barrier { mix, workers } => scenarios::barrier(subject, mix, workers).await,
        }
    }
}

/// A subject for a saga handler (a wrong fix, say) on the saga's schema.
pub fn subject<H: Handler>(handler: &H) -> Subject<H> {
    Subject::new([order_saga::__private::BASE_MIGRATIONS], handler.clone())
}

/// Barrier tests over the usual worker counts.
pub const fn barriers(mix: Mix) -> [SagaTest; 3] {
    [
        SagaTest::Barrier { mix, workers: 2 },
        SagaTest::Barrier { mix, workers: 8 },
        SagaTest::Barrier { mix, workers: 32 },
    ]
}

/// Each of `tests` as a probe over a lesson's exercise and solution.
pub fn probes<E, S>(
    tests: &[SagaTest],
    exercise: fn() -> Subject<E>,
    solution: fn() -> Subject<S>,
    intended: fn(&ViolationKind) -> bool,
) -> Vec<Probe>
where
    E: Handler,
    S: Handler,
{
    tests
        .iter()
        .map(|&test| {
            Probe::new(test.name(), test.rounds(), move |side| async move {
                let result = match side {
                    Side::Exercise => test.run(exercise()).await,
                    Side::Solution => test.run(solution()).await,
                };
                verdict(result, intended)
            })
        })
        .collect()
}

fn verdict(result: Result<(), Violation>, intended: fn(&ViolationKind) -> bool) -> Verdict {
    probe::verdict(result, intended, |during| match *during {
        Delivery::Barrier { round, .. } => round,
        Delivery::Story(_) => 1,
    })
}
