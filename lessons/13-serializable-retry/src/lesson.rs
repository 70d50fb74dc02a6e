//! Lesson 13 as the kit knows it: how its authorization is read and shown, which specs it can
//! judge, how it plays one (`scenarios/specs.rs`), and the scenarios still written in Rust. Its
//! tests are every permutation of its specs that names a test (`test NAME`), then those
//! scenarios: the exercise's and the solution's test file is one call (`Subject::tested_by`),
//! and the maintainers' checks play the same tests by name (`kit::contract::play`).

use kit::harness::Rust;
use kit::spec::{Feed, Run, Spec, SpecError};
use kit::{KitError, TestDatabase};

use crate::cards::Cards;
use crate::scenarios;
use crate::{Authorization, Delivery, Handled, Handler, Subject, Violation, ViolationKind};

/// Lesson 13: isolation levels, and retrying the whole transaction.
pub struct Lesson;

impl kit::Lesson for Lesson {
    const FOLDER: &'static str = env!("CARGO_MANIFEST_DIR");
    type Event = Authorization;
    type Output = Result<Handled, sqlx::Error>;
    type Delivery = Delivery;
    type Kind = ViolationKind;
    type World = Cards;

    const FEED: Feed<Authorization, Self::Output> = scenarios::FEED;
    const YOURS: &'static str =
        "the authorizations were delivered in the order your spec gives (a scripted interleaving)";
    const RUST: &'static [Rust] = &[
        // Passes against the shipped exercise too: one delivery at a time never conflicts.
        Rust::once("one_after_another_each_authorization_is_decided_once"),
    ];

    fn check(spec: &Spec) -> Result<(), SpecError> {
        scenarios::your_events(spec).map(drop)
    }

    async fn open(db: &TestDatabase) -> Result<Cards, KitError> {
        Cards::open(db).await
    }

    async fn ready(cards: &mut Cards, events: &[Authorization]) -> Result<(), KitError> {
        scenarios::ready(cards, &scenarios::ids(events)).await
    }

    async fn play<H: Handler>(
        subject: Subject<H>,
        db: &TestDatabase,
        cards: &mut Cards,
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        scenarios::play(subject, db, cards, run).await
    }

    async fn play_rust<H: Handler>(
        name: &'static str,
        subject: Subject<H>,
    ) -> Result<(), Violation> {
        match name {
            "one_after_another_each_authorization_is_decided_once" => {
                scenarios::decided_one_after_another(subject).await
            }
            other => panic!("lesson 13 lists {other} but plays no scenario by that name"),
        }
    }
}
