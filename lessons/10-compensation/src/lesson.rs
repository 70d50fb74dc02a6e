//! Lesson 10 as the kit knows it: how its event is read and shown and which specs it can judge
//! (`scenarios/specs.rs`), how it plays and judges one, and the scenarios still written in Rust (a
//! restore from a backup, and a cancellation that reaches the step before its reservation). Its
//! tests are every permutation of its specs that names a test (`test NAME`), then those scenarios:
//! the exercise's and the solution's test file is one call (`Subject::tested_by`), and the
//! maintainers' checks play the same tests by name (`kit::contract::play`).

use kit::harness::Rust;
use kit::spec::{Feed, Run, Spec, SpecError};
use kit::{KitError, TestDatabase};

use crate::inventory::Inventory;
use crate::judge::verdict;
use crate::scenarios::{self, FEED, observe, your_orders};
use crate::{Delivery, Handler, Outcome, ReservationEvent, Subject, Violation, ViolationKind};

/// Lesson 10: compensation.
pub struct Lesson;

impl kit::Lesson for Lesson {
    const FOLDER: &'static str = env!("CARGO_MANIFEST_DIR");
    type Event = ReservationEvent;
    type Output = Result<Outcome, sqlx::Error>;
    type Delivery = Delivery;
    type Kind = ViolationKind;
    type World = Inventory;

    const FEED: Feed<ReservationEvent, Self::Output> = FEED;
    const YOURS: &'static str =
        "your spec's events were delivered in the order it gives (a scripted interleaving)";
    const RUST: &'static [Rust] = &[
        // The step's database restored from a backup between two deliveries.
        Rust::once("a_replay_after_a_restore_is_announced_under_the_same_id"),
        // A cancellation before the reservation it would release: no units are held yet.
        Rust::once("a_cancellation_before_the_reservation_leaves_nothing_held"),
        // The same, racing the reservation's own transaction: a race the exercise loses.
        Rust {
            repeat: true,
            ..Rust::once("a_cancellation_racing_the_reservation_releases_it_once")
        },
    ];
    // The essay's barrier test, `specs/released.spec`.
    const RELEASES: bool = true;

    /// "an event for the same held reservation: payment.failed and order.cancelled", naming
    /// each kind the workers were handed, and whether some had the same one.
    fn carried(handed: &[ReservationEvent]) -> String {
        let mut kinds: Vec<&str> = Vec::new();
        for kind in handed.iter().map(|event| event.kind().as_str()) {
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        match (&kinds[..], handed.len() > kinds.len()) {
            ([kind], _) => format!("the same {kind}"),
            (kinds, repeated) => format!(
                "an event for the same held reservation: {}{}",
                listed(kinds),
                if repeated {
                    ", some of them more than once"
                } else {
                    ""
                }
            ),
        }
    }

    fn check(spec: &Spec) -> Result<(), SpecError> {
        your_orders(spec).map(drop)
    }

    async fn open(db: &TestDatabase) -> Result<Inventory, KitError> {
        Inventory::open(db).await
    }

    /// Each order's units reserved, held, as the inventory did when the order was created.
    async fn ready(inventory: &mut Inventory, events: &[ReservationEvent]) -> Result<(), KitError> {
        let mut reserved: Vec<&str> = Vec::new();
        for order_id in events.iter().map(ReservationEvent::order_id) {
            if !reserved.contains(&order_id) {
                inventory.reserve(order_id, scenarios::QUANTITY).await?;
                reserved.push(order_id);
            }
        }
        Ok(())
    }

    // ANCHOR: play
    /// Plays `permutation` of `spec` against `subject` on `db`, then judges it: for each order,
    /// the reservation settled once, by the first event to reach it, the units back on the shelf at
    /// most once, the release announced once, each delivery's report true; then the endings every
    /// spec shares (a delivery a fault ended must have said so, a neighbour must not have waited).
    async fn play<H: Handler>(
        subject: Subject<H>,
        db: &TestDatabase,
        inventory: &mut Inventory,
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        let during = run.during;
        let orders =
            your_orders(run.spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
        let mut played = run.play(db, &subject.handler, &FEED).await?;
        let mut observed = Vec::new();
        for order in &orders {
            let interleaving = Some(&mut played.interleaving);
            observed.push(observe(inventory, order, during, interleaving).await?);
        }
        for (order, observed) in orders.iter().zip(&observed) {
            // This lesson's rule does not weigh a COMMIT whose answer was lost.
            let (outcomes, _) = played.take_results(|event| event.order_id() == order);
            verdict(
                observed,
                &outcomes,
                during,
                Some(played.interleaving.trace()),
            )?;
        }
        played.end(during)
    }
    // ANCHOR_END: play

    /// One round of `specs/released.spec`: what each worker released together delivered and
    /// returned. Each order's reservation, reserved this round, must have been settled once, by
    /// one of them. A barrier round has no script, so its message has no trace.
    async fn judge_released(
        inventory: &mut Inventory,
        delivered: Vec<(ReservationEvent, Self::Output)>,
        during: Delivery,
    ) -> Result<(), Violation> {
        for (event, outcomes) in kit::contract::grouped(delivered, |e| e.order_id().to_string()) {
            let observed = observe(inventory, event.order_id(), during, None).await?;
            verdict(&observed, &outcomes, during, None)?;
        }
        Ok(())
    }

    async fn play_rust<H: Handler>(
        name: &'static str,
        subject: Subject<H>,
    ) -> Result<(), Violation> {
        match name {
            "a_replay_after_a_restore_is_announced_under_the_same_id" => {
                scenarios::replayed_after_a_restore(subject).await
            }
            "a_cancellation_before_the_reservation_leaves_nothing_held" => {
                scenarios::cancelled_before_the_reservation(subject).await
            }
            "a_cancellation_racing_the_reservation_releases_it_once" => {
                scenarios::cancellation_races_the_reservation(subject).await
            }
            other => panic!("lesson 10 lists {other} but plays no scenario by that name"),
        }
    }
}

/// "a, b and c".
fn listed(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
