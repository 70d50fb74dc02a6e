//! Lesson 01's subjects and race tests, as the checks run them.

use check_then_act::{Handler, Subject, Violation, ViolationKind, scenarios, subject};

use check_then_act::Delivery;

use crate::Lesson;
use crate::probe::{Probe, Side, Verdict};

pub const LESSON: Lesson = Lesson {
    number: "01",
    probes,
};

const EXERCISE_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../exercises/01-check-then-act"
);
const SOLUTION_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../solutions/01-check-then-act"
);

/// The handler and schema as shipped to students: check-then-act, no key.
pub fn exercise() -> Subject<impl Handler> {
    subject!(exercise_01::apply_credit, EXERCISE_DIR)
}

pub fn solution() -> Subject<impl Handler> {
    subject!(solution_01::apply_credit, SOLUTION_DIR)
}

/// The half-way state most students pass through: the key is added (the solution's schema),
/// the handler is unchanged, so the unique violation reaches the caller as an error.
pub fn key_only() -> Subject<impl Handler> {
    subject!(exercise_01::apply_credit, SOLUTION_DIR)
}

/// The race tests of the lesson: what `cargo repeat 01` runs over and over.
#[derive(Debug, Clone, Copy)]
pub enum RaceTest {
    ForcedInterleaving,
    Barrier { workers: usize },
}

pub const RACE_TESTS: [RaceTest; 4] = [
    RaceTest::ForcedInterleaving,
    RaceTest::Barrier { workers: 2 },
    RaceTest::Barrier { workers: 8 },
    RaceTest::Barrier { workers: 32 },
];

impl RaceTest {
    pub fn name(&self) -> String {
        match self {
            RaceTest::ForcedInterleaving => "forced interleaving".into(),
            RaceTest::Barrier { workers } => format!("barrier, {workers} workers"),
        }
    }

    pub async fn run<H: Handler>(&self, subject: Subject<H>) -> Result<(), Violation> {
        match *self {
            RaceTest::ForcedInterleaving => scenarios::forced_interleaving(subject).await,
            RaceTest::Barrier { workers } => scenarios::barrier(subject, workers).await,
        }
    }
}

/// The reason the shipped exercise must fail for: the double credit itself. A setup error, a
/// compile error or a timeout is never it.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(kind, ViolationKind::CreditedMoreThanOnce { .. })
}

fn probes() -> Vec<Probe> {
    RACE_TESTS
        .iter()
        .map(|&test| {
            let rounds = match test {
                RaceTest::ForcedInterleaving => 1,
                RaceTest::Barrier { .. } => scenarios::BARRIER_ROUNDS,
            };
            Probe::new(test.name(), rounds, move |side| async move {
                let result = match side {
                    Side::Exercise => test.run(exercise()).await,
                    Side::Solution => test.run(solution()).await,
                };
                match result {
                    Ok(()) => Verdict::Passed,
                    Err(violation) if is_intended(&violation.kind) => Verdict::Caught {
                        round: match violation.during {
                            Delivery::Barrier { round, .. } => round,
                            _ => 1,
                        },
                    },
                    Err(violation) => Verdict::Other(violation.to_string()),
                }
            })
        })
        .collect()
}
