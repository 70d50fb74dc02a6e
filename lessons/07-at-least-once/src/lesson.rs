//! Lesson 07 as the kit knows it: how a poll is read and shown and which specs it can judge
//! (`scenarios/specs.rs`), what a fresh database holds before a spec's polls, how it plays and
//! judges one, and the scenarios still written in Rust (a log of duplicates and contradictions,
//! another group, a log that grows between polls, consumers released together, the soak). Its
//! tests are every permutation of its specs that names a test (`test NAME`), then those
//! scenarios: the exercise's and the solution's test file is one call (`Subject::tested_by`),
//! and the maintainers' checks play the same tests by name (`kit::contract::play`).

use kit::harness::Rust;
use kit::spec::{Feed, Run, Spec, SpecError};
use kit::{KitError, TestDatabase};

use crate::log::Log;
use crate::scenarios::{self, FEED, GROUP, NEIGHBOUR, catch_up_then_verdict, delivered};
use crate::{Delivery, Handler, Poll, Polled, Subject, Violation, ViolationKind};

/// Lesson 07: at-least-once delivery, exactly-once effect.
pub struct Lesson;

/// The barrier's sizes: consumers of one group released together.
const CONSUMERS: &[(&str, &str)] = &[
    ("two_consumers", "2"),
    ("eight_consumers", "8"),
    ("thirty_two_consumers", "32"),
];

impl kit::Lesson for Lesson {
    const FOLDER: &'static str = env!("CARGO_MANIFEST_DIR");
    type Event = Poll;
    type Output = Result<Polled, sqlx::Error>;
    type Delivery = Delivery;
    type Kind = ViolationKind;
    type World = Log;

    const FEED: Feed<Poll, Self::Output> = FEED;
    const YOURS: &'static str = "the consumers polled in the order your spec gives (a scripted \
                                 interleaving)";
    const RUST: &'static [Rust] = &[
        // One consumer, nothing dies: passes against the broken consumer too.
        Rust::once("a_log_with_duplicates_and_contradictions_is_consumed_once"),
        Rust::once("another_group_of_the_log_is_left_alone"),
        Rust::once("events_appended_after_a_short_poll_are_consumed"),
        // Each consumer polls until the log is consumed: more than one delivery a worker,
        // which a spec's barrier cannot say.
        Rust {
            multi_thread: true,
            cases: CONSUMERS,
            ..Rust::once("consumers_released_together_handle_each_event_once")
        },
        // Thousands of events and kills at seeded points: a race the exercise loses.
        Rust {
            repeat: true,
            multi_thread: true,
            ..Rust::once("the_soak_loses_nothing_and_applies_nothing_twice")
        },
    ];

    fn check(spec: &Spec) -> Result<(), SpecError> {
        delivered(spec).map(drop)
    }

    /// ord-1 and ord-2 placed, and the group and its neighbour registered at the log's start.
    async fn open(db: &TestDatabase) -> Result<Log, KitError> {
        let log = Log::open(db).await?;
        log.set_up(&scenarios::order_ids(2), &[GROUP, NEIGHBOUR])
            .await?;
        Ok(log)
    }

    // ANCHOR: play
    /// Plays `permutation` of `spec` against `subject` on `db`, then a restarted consumer
    /// catches up, as many events a poll as the spec's first poll took, and the rule judges
    /// every poll. A poll a fault ended is judged too if it reported success all the same: the
    /// offset it claims to have moved is the one a restarted consumer trusts.
    async fn play<H: Handler>(
        subject: Subject<H>,
        db: &TestDatabase,
        log: &mut Log,
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        let during = run.during;
        let first = delivered(run.spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
        let orders = scenarios::order_ids(2);
        let mut played = run.play(db, &subject.handler, &FEED).await?;
        let appended = (log.appended().await).map_err(Violation::setup(during))?;
        let mut polls: Vec<_> = (played.delivered.drain(..))
            .map(|(_, _, outcome)| outcome)
            .collect();
        polls.extend(played.hidden.take().map(|hidden| Ok(hidden.reported)));
        let max = first[0].max();
        // One consumer, then the restarted one: no two polls overlapped.
        let one_at_a_time = run.spec.deliveries().len() == 1;
        let lists = (&orders[..], &appended[..]);
        let interleaving = &mut played.interleaving;
        let trace = catch_up_then_verdict(
            &subject,
            (db, log),
            lists,
            polls,
            (max, one_at_a_time),
            during,
            interleaving,
        )
        .await?;
        if let Some(trace) = trace {
            kit::passing_trace(&trace);
        }
        Ok(())
    }
    // ANCHOR_END: play

    async fn play_rust<H: Handler>(
        name: &'static str,
        subject: Subject<H>,
    ) -> Result<(), Violation> {
        match name.split("::").next().unwrap_or(name) {
            "a_log_with_duplicates_and_contradictions_is_consumed_once" => {
                scenarios::consumed_once(subject).await
            }
            "another_group_of_the_log_is_left_alone" => {
                scenarios::another_group_is_not_held_up(subject).await
            }
            "events_appended_after_a_short_poll_are_consumed" => {
                scenarios::the_log_grows_between_polls(subject).await
            }
            "consumers_released_together_handle_each_event_once" => {
                let consumers = kit::contract::listed::<Lesson>().case(name);
                scenarios::barrier(subject, consumers).await
            }
            "the_soak_loses_nothing_and_applies_nothing_twice" => {
                scenarios::soak_test(subject).await
            }
            other => panic!("lesson 07 lists {other} but plays no scenario by that name"),
        }
    }
}
