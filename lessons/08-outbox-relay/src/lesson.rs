//! Lesson 08 as the kit knows it: how a step is read and shown and which specs it can judge
//! (`scenarios/specs.rs`), how it plays and judges one, and the scenarios still written in Rust
//! (the pipeline with nothing in its way, a message the broker refused, a producer restored from
//! a backup, relays released together). Its tests are every permutation of its specs that names
//! a test (`test NAME`), then those scenarios: the exercise's and the solution's test file is
//! one call (`Subject::tested_by`), and the maintainers' checks play the same tests by name
//! (`kit::contract::play`).

use kit::Fault;
use kit::harness::Rust;
use kit::spec::{Feed, Hidden, Run, Spec, SpecError};
use kit::{KitError, TestDatabase};

use crate::judge::verdict;
use crate::scenarios::{self, FEED, consume_all, delivered, relay_until_empty, reports};
use crate::world::World;
use crate::{Delivery, Done, Handler, Step, Subject, Violation, ViolationKind};

/// Lesson 08: the outbox relay and the consumer's inbox.
pub struct Lesson;

/// The barrier's sizes: relays released together.
const RELAYS: &[(&str, &str)] = &[
    ("two_relays", "2"),
    ("eight_relays", "8"),
    ("thirty_two_relays", "32"),
];

impl kit::Lesson for Lesson {
    const FOLDER: &'static str = env!("CARGO_MANIFEST_DIR");
    type Event = Step;
    type Output = Result<Done, sqlx::Error>;
    type Delivery = Delivery;
    type Kind = ViolationKind;
    type World = World;

    const FEED: Feed<Step, Self::Output> = FEED;
    const YOURS: &'static str =
        "the relays and consumers ran in the order your spec gives (a scripted interleaving)";
    const RUST: &'static [Rust] = &[
        // Nothing in the pipeline's way: passes against the broken relay too.
        Rust::once("announcements_are_relayed_and_shipped_once"),
        // The broker refuses a publish the relay then retries: a race the exercise loses.
        Rust {
            repeat: true,
            ..Rust::once("a_message_the_broker_refused_is_published_later")
        },
        // The producer's database restored from a backup between two announcements.
        Rust::once("a_new_event_after_the_producer_is_restored_ships"),
        // Each relay passes until it finds nothing, then the consumer takes every message: more
        // than one delivery a worker, which a spec's barrier cannot say.
        Rust {
            multi_thread: true,
            cases: RELAYS,
            ..Rust::once("relays_released_together_ship_each_row_once")
        },
    ];

    fn check(spec: &Spec) -> Result<(), SpecError> {
        delivered(spec).map(drop)
    }

    async fn open(db: &TestDatabase) -> Result<World, KitError> {
        World::open(db).await
    }

    // ANCHOR: play
    /// Plays `permutation` of `spec` against `subject`. A spec whose sessions consume starts
    /// with the rows its setup wrote already published, so that the broker holds the messages
    /// it delivers, however the relay records what it sent. After the steps, if the spec
    /// relays, the relays run until they find nothing; then the consumer handles every message
    /// the broker got that no step was handed, and the rule judges every outbox row. What a
    /// relay a fault ended reported is not judged (no sender waits on a relay's report, and the
    /// next pass relays whatever it failed to), though what it did to the outbox and the broker
    /// is; a consumer that must not wait did not; a consumer a fault ended must have reported
    /// the failure.
    async fn play<H: Handler>(
        subject: Subject<H>,
        db: &TestDatabase,
        world: &mut World,
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        let during = run.during;
        let given = delivered(run.spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
        let consumes = (given.iter()).any(|step| matches!(step, Step::Consume(_)));
        let relays = (given.iter()).any(|step| matches!(step, Step::Relay(_)));
        let pool = db.pool(1).await.map_err(Violation::setup(during))?;
        run.set_up(db).await?;
        let (mut steps, position) = match consumes {
            true => {
                let steps = relay_until_empty(&subject, &pool).await;
                let (_, last) =
                    (world.messages_after(0).await).map_err(Violation::setup(during))?;
                (steps, last)
            }
            false => (Vec::new(), 0),
        };
        let mut played = run.play_set_up(db, &subject.handler, &FEED).await?;
        steps.extend(reports(&run, played.delivered.drain(..)));
        if relays {
            steps.extend(relay_until_empty(&subject, &pool).await);
        }
        steps.extend(consume_all(&subject, world, &pool, position, during).await?);
        verdict(world, &steps, during, Some(&mut played.interleaving)).await?;
        played.unless_a_neighbour_waited(during)?;
        let (hidden, fault) = match played.hidden {
            Some(Hidden {
                reported: Done::Consumed(outcome),
                fault,
                ..
            }) => (Some(outcome), fault),
            _ => (None, Fault::Killed),
        };
        Violation::unless_failure_hidden(hidden, fault, during, played.interleaving.trace())
    }
    // ANCHOR_END: play

    async fn play_rust<H: Handler>(
        name: &'static str,
        subject: Subject<H>,
    ) -> Result<(), Violation> {
        match name.split("::").next().unwrap_or(name) {
            "announcements_are_relayed_and_shipped_once" => {
                scenarios::relayed_and_consumed_once(subject).await
            }
            "a_message_the_broker_refused_is_published_later" => {
                scenarios::broker_refuses_a_message(subject).await
            }
            "a_new_event_after_the_producer_is_restored_ships" => {
                scenarios::producer_restored_from_a_backup(subject).await
            }
            "relays_released_together_ship_each_row_once" => {
                let relays = kit::contract::listed::<Lesson>().case(name);
                scenarios::barrier(subject, relays).await
            }
            other => panic!("lesson 08 lists {other} but plays no scenario by that name"),
        }
    }
}
