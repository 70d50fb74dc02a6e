//! Lesson 06's subjects, race and fault tests, as the checks run them.

use deterministic_ids::{Delivery, Handler, Subject, Violation, ViolationKind, scenarios, subject};

use crate::Lesson;
use crate::probe::{self, Probe, Side};
use crate::wrong_fix::{BARRIERS, Failed, named, run_all};

pub const LESSON: Lesson = Lesson {
    number: "06",
    probes,
};

/// As shipped: "charged already?", then a fresh random id for the network and the saga.
pub fn exercise() -> Subject<impl Handler> {
    subject!(exercise_06::take_payment)
}

pub fn solution() -> Subject<impl Handler> {
    subject!(solution_06::take_payment)
}

/// The race and fault tests of the lesson: what `cargo repeat 06` runs over and over.
#[derive(Debug, Clone, Copy)]
pub enum RaceTest {
    KilledAfterTheCharge,
    CancelledAfterTheCharge,
    DuplicateRace,
    Barrier { workers: usize },
}

pub const RACE_TESTS: [RaceTest; 6] = [
    RaceTest::KilledAfterTheCharge,
    RaceTest::CancelledAfterTheCharge,
    RaceTest::DuplicateRace,
    RaceTest::Barrier { workers: 2 },
    RaceTest::Barrier { workers: 8 },
    RaceTest::Barrier { workers: 32 },
];

impl RaceTest {
    pub fn name(&self) -> String {
        match self {
            RaceTest::KilledAfterTheCharge => "fault: killed after the charge".into(),
            RaceTest::CancelledAfterTheCharge => "fault: cancelled after the charge".into(),
            RaceTest::DuplicateRace => "forced: duplicate vs. uncommitted".into(),
            RaceTest::Barrier { workers } => format!("barrier, {workers} workers"),
        }
    }

    pub async fn run<H: Handler>(self, subject: Subject<H>) -> Result<(), Violation> {
        match self {
            RaceTest::KilledAfterTheCharge => {
                scenarios::crash_after_the_charge_then_redelivery(subject).await
            }
            RaceTest::CancelledAfterTheCharge => {
                scenarios::cancelled_after_the_charge_then_redelivery(subject).await
            }
            RaceTest::DuplicateRace => {
                scenarios::duplicate_races_an_uncommitted_delivery(subject).await
            }
            RaceTest::Barrier { workers } => scenarios::barrier(subject, workers).await,
        }
    }
}

/// The reason the shipped exercise must fail for: the customer charged twice. A setup error, a
/// compile error or a timeout is never it.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(kind, ViolationKind::ChargedTwice { .. })
}

fn probes() -> Vec<Probe> {
    probe::probes(
        &RACE_TESTS,
        RaceTest::name,
        |test| match *test {
            RaceTest::Barrier { workers } => scenarios::barrier_rounds(workers),
            _ => 1,
        },
        |test, side| async move {
            match side {
                Side::Exercise => test.run(exercise()).await,
                Side::Solution => test.run(solution()).await,
            }
        },
        is_intended,
        |during| match *during {
            Delivery::Barrier { round, .. } => round,
            Delivery::Story(_) => 1,
        },
    )
}

/// The lesson's whole suite, the scenarios `exercise-tests.rs` runs, against `handler` (a wrong
/// fix from `wrong-fixes/`): the scenarios that failed.
pub async fn suite<H: Handler>(handler: H, _crate_migrations: &'static str) -> Vec<Failed> {
    let subject = || {
        Subject::new(
            [deterministic_ids::__private::BASE_MIGRATIONS],
            handler.clone(),
        )
    };
    let mut all = vec![
        named(
            "redelivered_after_commit",
            scenarios::redelivered_after_commit(subject()),
        ),
        named(
            "crash_after_the_charge_then_redelivery",
            scenarios::crash_after_the_charge_then_redelivery(subject()),
        ),
        named(
            "crash_during_the_charge_then_redelivery",
            scenarios::crash_during_the_charge_then_redelivery(subject()),
        ),
        named(
            "cancelled_after_the_charge_then_redelivery",
            scenarios::cancelled_after_the_charge_then_redelivery(subject()),
        ),
        named(
            "duplicate_races_an_uncommitted_delivery",
            scenarios::duplicate_races_an_uncommitted_delivery(subject()),
        ),
        named(
            "replayed_after_a_restore",
            scenarios::replayed_after_a_restore(subject()),
        ),
        named(
            "other_orders_do_not_wait",
            scenarios::other_orders_do_not_wait(subject()),
        ),
    ];
    for (workers, name) in BARRIERS {
        all.push(named(name, scenarios::barrier(subject(), workers)));
    }
    run_all(all).await
}

#[cfg(test)]
mod tests {
    //! The shipped exercise charges twice, every time, and for no other reason; a sequential
    //! test cannot tell it from the fix; the solution passes everything. The failing traces are
    //! snapshotted beside this file: the book shows them.

    use deterministic_ids::{Violation, scenarios};

    use crate::intended::{Complaint, expect, numbered_uuids, passing, trace};

    const WHY: &str = "each delivery hands the card network a key of its own";

    #[tokio::test]
    async fn exercise_charges_twice_when_a_delivery_dies_after_charging() -> Result<(), Complaint> {
        let result = scenarios::crash_after_the_charge_then_redelivery(super::exercise()).await;
        crate::snapshot!(
            "exercise_crash_after_the_charge",
            numbered_uuids(&trace(expect(result, super::is_intended, WHY)?)?)
        );
        Ok(())
    }

    #[tokio::test]
    async fn exercise_charges_twice_under_the_forced_race() -> Result<(), Complaint> {
        let result = scenarios::duplicate_races_an_uncommitted_delivery(super::exercise()).await;
        crate::snapshot!(
            "exercise_duplicate_race",
            numbered_uuids(&trace(expect(result, super::is_intended, WHY)?)?)
        );
        Ok(())
    }

    #[tokio::test]
    async fn exercise_charges_twice_when_replayed_after_a_restore() -> Result<(), Complaint> {
        let result = scenarios::replayed_after_a_restore(super::exercise()).await;
        expect(result, super::is_intended, WHY).map(drop)
    }

    /// The chapter's first point: the sequential test cannot tell the broken handler from the
    /// fix; nor can a test about another order.
    #[tokio::test]
    async fn exercise_passes_what_the_lesson_is_not_about() -> Result<(), Violation> {
        scenarios::redelivered_after_commit(super::exercise()).await?;
        scenarios::crash_during_the_charge_then_redelivery(super::exercise()).await?;
        scenarios::other_orders_do_not_wait(super::exercise()).await
    }

    /// The solution's passing traces, which the chapter shows. Only the solution's: a student's
    /// correct handler may interleave differently (wait on another session) and must pass.
    #[tokio::test]
    async fn solution_traces_as_the_chapter_shows_them() -> Result<(), Complaint> {
        let trace = passing(scenarios::crash_after_the_charge_then_redelivery(
            super::solution(),
        ))
        .await?;
        crate::snapshot!("solution_crash_after_the_charge", trace);
        let trace = passing(scenarios::duplicate_races_an_uncommitted_delivery(
            super::solution(),
        ))
        .await?;
        crate::snapshot!("solution_duplicate_race", trace);
        Ok(())
    }
}
