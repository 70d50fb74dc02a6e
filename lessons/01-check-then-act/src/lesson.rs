//! Lesson 01 as the kit knows it: how its event is read and shown, which specs it can judge,
//! and how it plays one (`scenarios/specs.rs`). Its tests are every permutation of its specs
//! that names a test (`test NAME`): the exercise's and the solution's test file is one call
//! (`Subject::tested_by`), and the maintainers' checks play the same tests by name
//! (`kit::contract::play`).

use kit::spec::{Feed, Run, Spec, SpecError};
use kit::{KitError, TestDatabase};

use crate::ledger::Ledger;
use crate::scenarios;
use crate::{CreditEvent, Delivery, Handler, Outcome, Subject, Violation, ViolationKind};

/// Lesson 01: check-then-act versus a primary key.
pub struct Lesson;

impl kit::Lesson for Lesson {
    const FOLDER: &'static str = env!("CARGO_MANIFEST_DIR");
    type Event = CreditEvent;
    type Output = Result<Outcome, sqlx::Error>;
    type Delivery = Delivery;
    type Kind = ViolationKind;
    type World = Ledger;

    const FEED: Feed<CreditEvent, Self::Output> = scenarios::FEED;
    const YOURS: &'static str =
        "was delivered in the order your spec gives (a scripted interleaving)";
    // The essay's barrier test, `specs/released.spec`.
    const RELEASES: bool = true;

    fn check(spec: &Spec) -> Result<(), SpecError> {
        scenarios::your_events(spec).map(drop)
    }

    async fn open(db: &TestDatabase) -> Result<Ledger, KitError> {
        Ledger::open(db).await
    }

    /// Each event's account, opened at zero: the balance then counts its credits.
    async fn ready(ledger: &mut Ledger, events: &[CreditEvent]) -> Result<(), KitError> {
        let mut opened: Vec<&str> = Vec::new();
        for account in events.iter().map(CreditEvent::account) {
            if !opened.contains(&account) {
                ledger.open_account(account).await?;
                opened.push(account);
            }
        }
        Ok(())
    }

    async fn play<H: Handler>(
        subject: Subject<H>,
        db: &TestDatabase,
        ledger: &mut Ledger,
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        scenarios::play(subject, db, ledger, run).await
    }

    async fn judge_released(
        ledger: &mut Ledger,
        delivered: Vec<(CreditEvent, Self::Output)>,
        during: Delivery,
    ) -> Result<(), Violation> {
        scenarios::judge_released(ledger, delivered, during).await
    }
}
