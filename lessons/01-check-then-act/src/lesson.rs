//! Lesson 01 as the kit knows it: how its event is read and shown and which specs it can judge
//! (`scenarios/specs.rs`), and how it plays and judges one. Its tests are every permutation of its
//! specs that names a test (`test NAME`): the exercise's and the solution's test file is one call
//! (`Subject::tested_by`), and the maintainers' checks play the same tests by name
//! (`kit::contract::play`).

use kit::spec::{Feed, Run, Spec, SpecError};
use kit::{Common, KitError, TestDatabase};

use crate::judge::judge_account;
use crate::ledger::{Ledger, Observed};
use crate::scenarios::{self, FEED, by_account, your_events};
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

    const FEED: Feed<CreditEvent, Self::Output> = FEED;
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

    // ANCHOR: play
    /// Plays `permutation` of `spec` against `subject` on `db` (each event's account open at zero),
    /// then judges it. What a delivery a fault ended reported is judged first: a sender that hears
    /// "applied" delivers no more, so the redelivery the spec plays after it is one a real sender
    /// would not make. Then the rule, for each event over its own account, and last, the waits: a
    /// delivery the spec expects to wait that decided while the first delivery's transaction was
    /// still open has guessed, and one for another account that waited was held up by a lock on a
    /// neighbour.
    async fn play<H: Handler>(
        subject: Subject<H>,
        db: &TestDatabase,
        ledger: &mut Ledger,
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        let (spec, permutation, during) = (run.spec, run.permutation, run.during);
        let events = your_events(spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
        let mut played = run.play(db, &subject.handler, &FEED).await?;
        let mut accounts = Vec::new();
        for (account, events) in by_account(&events) {
            let mut observed = Vec::new();
            for event in &events {
                let seen = ledger.observe(account, event).await;
                observed.push(seen.map_err(Violation::setup(during))?);
            }
            played.interleaving.note(noted(account, &events, &observed));
            accounts.push((events, observed));
        }
        // A delivery on its own has no order to show: its message has no trace.
        let trace = (spec.sessions.len() > 1).then(|| played.interleaving.trace().clone());
        let caught = |kind| Violation {
            kind,
            during,
            trace: trace.clone(),
        };
        if let Some(hidden) = played.hidden.take() {
            let waited_on_a_delivery = (hidden.waited_on.iter())
                .any(|on| spec.deliveries().iter().any(|(s, _, _)| s == on));
            return Err(caught(match waited_on_a_delivery {
                true => ViolationKind::WaitEndedTakenForADuplicate {
                    outcome: hidden.reported,
                },
                false => ViolationKind::Common(Common::FailureHidden {
                    outcome: hidden.reported,
                    fault: hidden.fault,
                }),
            }));
        }
        for (events, observed) in accounts {
            let ours = |delivered: &CreditEvent| events.iter().any(|e| e.id() == delivered.id());
            let (outcomes, lost) = played.take_results(ours);
            judge_account(&observed, &outcomes, lost).map_err(&caught)?;
        }
        if (permutation.waits.iter()).any(|session| !played.waited(session)) {
            return Err(caught(ViolationKind::DecidedWithoutWaiting));
        }
        played.end(during)
    }
    // ANCHOR_END: play

    /// One round of `specs/released.spec`: what each worker released together delivered and
    /// returned. Each account, opened at zero this round, is judged by the rule as in [`play`]
    /// (`judge`, or `judge_unopened` for a student's account that does not exist). A barrier round
    /// has no script, so its message has no trace.
    async fn judge_released(
        ledger: &mut Ledger,
        delivered: Vec<(CreditEvent, Self::Output)>,
        during: Delivery,
    ) -> Result<(), Violation> {
        // A released permutation has one event for each account (`your_events` refuses more).
        for (event, outcomes) in kit::contract::grouped(delivered, |e| e.account().to_string()) {
            let observed = ledger.observe(event.account(), &event).await;
            let observed = observed.map_err(Violation::setup(during))?;
            judge_account(&[observed], &outcomes, 0).map_err(Violation::caught(during, None))?;
        }
        Ok(())
    }
}

/// The trace's line for one account: how often it was credited (or what it holds, or that it
/// does not exist), and how many rows record each of its events.
fn noted(account: &str, events: &[&CreditEvent], observed: &[Observed]) -> String {
    let Some(first) = observed.first() else {
        return format!("{account}: no event");
    };
    let held = match (first.opened, first.credits()) {
        (false, _) => "does not exist".to_string(),
        (true, Some(credits)) if events.len() == 1 => format!("credited {credits} time(s)"),
        (true, _) => format!("holds {} cents", first.balance_cents),
    };
    let records = (events.iter().zip(observed).enumerate())
        .map(|(n, (event, seen))| match n {
            0 => format!("{} row(s) for {}", seen.records, event.id()),
            _ => format!("{} for {}", seen.records, event.id()),
        })
        .collect::<Vec<_>>();
    format!(
        "{account} {held}; processed_events holds {}",
        records.join(", ")
    )
}
