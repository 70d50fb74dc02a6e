//! Lesson 09 as the kit knows it: how a run of the prune is read and shown and which specs it
//! can judge (`scenarios/specs.rs`), the backlog a spec's prunes start from, how it plays and
//! judges one, and the scenarios still written in Rust (copies at the window's edges, around a
//! prune and after midnight, a backlog pruned in batches, and the prune released together with
//! deliveries, a day a round). Its tests are every permutation of its specs that names a test
//! (`test NAME`), then those scenarios: the exercise's and the solution's test file is one call
//! (`Subject::tested_by`), and the maintainers' checks play the same tests by name
//! (`kit::contract::play`).

use chrono::TimeDelta;
use kit::harness::Rust;
use kit::spec::{Feed, Run, Spec, SpecError};
use kit::{Common, KitError, TestDatabase};

use crate::judge::nothing_kept_too_long;
use crate::ledger::Ledger;
use crate::scenarios::{self, FEED, delivered, failed, t0};
use crate::{Delivery, Handler, Prune, Pruned, Subject, Violation, ViolationKind};

/// Lesson 09: retention, and how long a key is needed.
pub struct Lesson;

/// The barrier's sizes: one task pruning, the others delivering, released together.
const WORKERS: &[(&str, &str)] = &[
    ("two_workers", "2"),
    ("eight_workers", "8"),
    ("thirty_two_workers", "32"),
];

impl kit::Lesson for Lesson {
    const FOLDER: &'static str = env!("CARGO_MANIFEST_DIR");
    type Event = Prune;
    type Output = Result<Pruned, sqlx::Error>;
    type Delivery = Delivery;
    type Kind = ViolationKind;
    type World = Ledger;

    const FEED: Feed<Prune, Self::Output> = FEED;
    const YOURS: &'static str =
        "the prunes ran in the order your spec gives (a scripted interleaving)";
    const RUST: &'static [Rust] = &[
        Rust::once("a_copy_after_a_prune_changes_nothing"),
        Rust::once("a_copy_at_the_end_of_the_window_changes_nothing"),
        Rust::once("a_late_event_is_kept_for_the_whole_window"),
        Rust::once("rows_past_the_retention_limit_are_removed"),
        Rust::once("a_copy_after_midnight_changes_nothing"),
        Rust::once("a_backlog_is_pruned_in_bounded_batches"),
        // A prune beside the deliveries, a day a round: a spec's barrier releases deliveries
        // only. A race the exercise loses.
        Rust {
            repeat: true,
            multi_thread: true,
            cases: WORKERS,
            ..Rust::once("workers_released_together_with_the_prune_apply_each_credit_once")
        },
    ];

    fn check(spec: &Spec) -> Result<(), SpecError> {
        delivered(spec).map(drop)
    }

    async fn open(db: &TestDatabase) -> Result<Ledger, KitError> {
        Ledger::open(db).await
    }

    /// processed_events holds ten rows received ten days before the prune's time: past the
    /// retention limit, so a prune that runs must remove them.
    async fn ready(ledger: &mut Ledger, _: &[Prune]) -> Result<(), KitError> {
        let received = t0() - TimeDelta::days(10);
        ledger.backlog("evt-old-", 10, received).await
    }

    // ANCHOR: play
    /// Plays `permutation` of `spec` against `subject`, then judges it: no prune waited for a
    /// delivery, a prune a fault ended said so, every other prune succeeded, and no row is kept
    /// too long. Every violation carries the trace.
    async fn play<H: Handler>(
        subject: Subject<H>,
        db: &TestDatabase,
        ledger: &mut Ledger,
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        let during = run.during;
        let played = run.play(db, &subject.handler, &FEED).await?;
        let trace = played.interleaving.trace().clone();
        let traced = |mut violation: Violation| {
            violation.trace = Some(trace.clone());
            violation
        };
        let caught = |kind| {
            traced(Violation {
                kind,
                during,
                trace: None,
            })
        };
        // A prune a fault ended is no one's answer, unless it reported success all the same:
        // then its scheduler believes the rows are gone.
        if let Some(hidden) = &played.hidden {
            let (outcome, fault) = (hidden.reported, hidden.fault);
            return Err(caught(ViolationKind::Common(Common::FailureHidden {
                outcome,
                fault,
            })));
        }
        for (session, _, outcome) in &played.delivered {
            if played.waited(session) {
                return Err(caught(ViolationKind::PruneWaited {
                    on: "the delivery".to_string(),
                }));
            }
            if let Err(error) = outcome {
                return Err(traced(failed(error, during)));
            }
        }
        nothing_kept_too_long(ledger, t0(), during)
            .await
            .map_err(traced)?;
        kit::passing_trace(&trace);
        Ok(())
    }
    // ANCHOR_END: play

    async fn play_rust<H: Handler>(
        name: &'static str,
        subject: Subject<H>,
    ) -> Result<(), Violation> {
        match name.split("::").next().unwrap_or(name) {
            "a_copy_after_a_prune_changes_nothing" => {
                scenarios::a_copy_after_a_prune_is_recognised(subject).await
            }
            "a_copy_at_the_end_of_the_window_changes_nothing" => {
                scenarios::a_copy_at_the_end_of_the_window_is_recognised(subject).await
            }
            "a_late_event_is_kept_for_the_whole_window" => {
                scenarios::a_late_event_is_kept_for_the_window(subject).await
            }
            "rows_past_the_retention_limit_are_removed" => {
                scenarios::rows_past_the_retention_limit_are_removed(subject).await
            }
            "a_copy_after_midnight_changes_nothing" => {
                scenarios::a_copy_after_midnight_is_recognised(subject).await
            }
            "a_backlog_is_pruned_in_bounded_batches" => {
                scenarios::the_backlog_is_pruned_in_bounded_batches(subject).await
            }
            "workers_released_together_with_the_prune_apply_each_credit_once" => {
                let workers = kit::contract::listed::<Lesson>().case(name);
                scenarios::barrier(subject, workers).await
            }
            other => panic!("lesson 09 lists {other} but plays no scenario by that name"),
        }
    }
}
