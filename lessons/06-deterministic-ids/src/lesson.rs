//! Lesson 06 as the kit knows it: how its event is read and shown and which specs it can judge
//! (`scenarios/specs.rs`), how it plays and judges one, and the one scenario still written in Rust
//! (a restore from a backup between two deliveries). Its tests are every permutation of its specs
//! that names a test (`test NAME`), then that scenario: the exercise's and the solution's test file
//! is one call (`Subject::tested_by`), and the maintainers' checks play the same tests by name
//! (`kit::contract::play`).

use kit::harness::Rust;
use kit::spec::{Feed, Run, Spec, SpecError};
use kit::{KitError, TestDatabase};

use crate::judge::verdict;
use crate::scenarios::{self, FEED, observe, your_orders};
use crate::step::PaymentStep;
use crate::{Delivery, Handler, OrderCreated, Outcome, Subject, Violation, ViolationKind};

/// Lesson 06: deterministic ids upstream.
pub struct Lesson;

impl kit::Lesson for Lesson {
    const FOLDER: &'static str = env!("CARGO_MANIFEST_DIR");
    type Event = OrderCreated;
    type Output = Result<Outcome, sqlx::Error>;
    type Delivery = Delivery;
    type Kind = ViolationKind;
    type World = PaymentStep;

    const FEED: Feed<OrderCreated, Self::Output> = FEED;
    const YOURS: &'static str =
        "order.created was delivered in the order your spec gives (a scripted interleaving)";
    const RUST: &'static [Rust] = &[
        // The step's database restored from a backup between two deliveries: no spec step
        // can hand the rule what the saga heard before the restore.
        Rust::once("a_replay_after_a_restore_is_recognised_by_the_network_and_the_saga"),
    ];
    // The essay's barrier test, `specs/released.spec`.
    const RELEASES: bool = true;

    fn carried(_: &[OrderCreated]) -> String {
        "the same order.created".into()
    }

    fn check(spec: &Spec) -> Result<(), SpecError> {
        your_orders(spec).map(drop)
    }

    async fn open(db: &TestDatabase) -> Result<PaymentStep, KitError> {
        PaymentStep::open(db).await
    }

    // ANCHOR: play
    /// Plays `permutation` of `spec` against `subject` on `db`, then judges it: for each order, the
    /// rule over what the network, the record and the outbox hold for it, and the deliveries for
    /// it no fault ended; then the endings every spec shares (a delivery a fault ended must have
    /// reported its failure, a neighbour must not have waited).
    async fn play<H: Handler>(
        subject: Subject<H>,
        db: &TestDatabase,
        step: &mut PaymentStep,
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        let during = run.during;
        let orders =
            your_orders(run.spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
        let mut played = run.play(db, &subject.handler, &FEED).await?;
        let mut observed = Vec::new();
        for order in &orders {
            let interleaving = Some(&mut played.interleaving);
            observed.push(observe(step, order.order_id(), &[], during, interleaving).await?);
        }
        for (order, observed) in orders.iter().zip(&observed) {
            let (outcomes, lost) =
                played.take_results(|event| event.order_id() == order.order_id());
            let trace = played.interleaving.trace();
            verdict(observed, &outcomes, lost, during, Some(trace))?;
        }
        played.end(during)
    }
    // ANCHOR_END: play

    /// One round of `specs/released.spec`: what each worker released together delivered and
    /// returned. For each order, the customer must have been charged once and the saga told under
    /// one id. A barrier round has no script, so its message has no trace.
    async fn judge_released(
        step: &mut PaymentStep,
        delivered: Vec<(OrderCreated, Self::Output)>,
        during: Delivery,
    ) -> Result<(), Violation> {
        for (order, outcomes) in kit::contract::grouped(delivered, |o| o.order_id().to_string()) {
            let observed = observe(step, order.order_id(), &[], during, None).await?;
            verdict(&observed, &outcomes, 0, during, None)?;
        }
        Ok(())
    }

    async fn play_rust<H: Handler>(
        name: &'static str,
        subject: Subject<H>,
    ) -> Result<(), Violation> {
        match name {
            "a_replay_after_a_restore_is_recognised_by_the_network_and_the_saga" => {
                scenarios::replayed_after_a_restore(subject).await
            }
            other => panic!("lesson 06 lists {other} but plays no scenario by that name"),
        }
    }
}
