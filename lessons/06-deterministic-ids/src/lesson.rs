//! Lesson 06 as the kit knows it: how its event is read and shown, which specs it can judge,
//! how it plays one (`scenarios/specs.rs`), and the one scenario still written in Rust (a
//! restore from a backup between two deliveries). Its tests are every permutation of its specs
//! that names a test (`test NAME`), then that scenario: the exercise's and the solution's test
//! file is one call (`Subject::tested_by`), and the maintainers' checks play the same tests by
//! name (`kit::contract::play`).

use kit::harness::Rust;
use kit::spec::{Feed, Run, Spec, SpecError};
use kit::{KitError, TestDatabase};

use crate::scenarios;
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

    const FEED: Feed<OrderCreated, Self::Output> = scenarios::FEED;
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
        scenarios::your_orders(spec).map(drop)
    }

    async fn open(db: &TestDatabase) -> Result<PaymentStep, KitError> {
        PaymentStep::open(db).await
    }

    async fn play<H: Handler>(
        subject: Subject<H>,
        db: &TestDatabase,
        step: &mut PaymentStep,
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        scenarios::play(subject, db, step, run).await
    }

    async fn judge_released(
        step: &mut PaymentStep,
        delivered: Vec<(OrderCreated, Self::Output)>,
        during: Delivery,
    ) -> Result<(), Violation> {
        scenarios::judge_released(step, delivered, during).await
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
