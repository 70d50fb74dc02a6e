//! Lesson 13 as the kit knows it: how its authorization is read and shown, which specs it can
//! judge, what a database needs for them, and how it plays one (`scenarios/specs.rs`). Its tests
//! are every permutation of its specs that names a test (`test NAME`), and nothing in Rust: the
//! exercise's and the solution's test file is one call (`Subject::tested_by`), and the
//! maintainers' checks play the same tests by name (`kit::contract::play`).

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
}
