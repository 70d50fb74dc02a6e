//! Lesson 13 as the kit knows it: how its authorization is read and shown and which specs it can
//! judge (`scenarios/specs.rs`), what a database needs for them, and how it plays and judges one.
//! Its tests are every permutation of its specs that names a test (`test NAME`), and nothing in
//! Rust: the exercise's and the solution's test file is one call (`Subject::tested_by`), and the
//! maintainers' checks play the same tests by name (`kit::contract::play`).

use kit::spec::{Feed, Run, Spec, SpecError};
use kit::{KitError, TestDatabase};

use crate::cards::Cards;
use crate::judge::{Delivered, Expect};
use crate::scenarios::{self, CARDS, FEED, described, ids, judge_all, your_events};
use crate::violation::MOST_ATTEMPTS;
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

    const FEED: Feed<Authorization, Self::Output> = FEED;
    const YOURS: &'static str =
        "the authorizations were delivered in the order your spec gives (a scripted interleaving)";

    fn check(spec: &Spec) -> Result<(), SpecError> {
        your_events(spec).map(drop)
    }

    async fn open(db: &TestDatabase) -> Result<Cards, KitError> {
        Cards::open(db).await
    }

    async fn ready(cards: &mut Cards, events: &[Authorization]) -> Result<(), KitError> {
        scenarios::ready(cards, &ids(events)).await
    }

    // ANCHOR: play
    /// Plays `permutation` of `spec` against `subject` on `db` (the customer, its cards, and each
    /// event's attempts counted), then judges it. A delivery a fault ended is set apart, and its
    /// attempt is not counted: it ended with its fault. So is one whose answer to its COMMIT was
    /// lost: its decision stands, claimed by nobody.
    async fn play<H: Handler>(
        subject: Subject<H>,
        db: &TestDatabase,
        cards: &mut Cards,
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        let (spec, permutation, during) = (run.spec, run.permutation, run.during);
        let events = your_events(spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
        let ids = ids(&events);
        let mut played = run.play(db, &subject.handler, &FEED).await?;
        let delivered: Vec<Delivered> = (played.delivered.drain(..))
            .map(|(_, event, result)| (event, result))
            .collect();
        // What a delivery a fault ended, or one that never heard the answer to its COMMIT, said of
        // its attempts is not its sender's to hear: those attempts are not counted.
        let attempts: Vec<(&str, u64)> = (ids.iter())
            .map(|id| {
                let ended = (played.ended.iter()).filter(|(_, event, _)| event.id() == *id);
                // A delivery that heard no answer may have tried again before it reported.
                let lost: u64 = (played.answers_lost.iter())
                    .filter(|(_, event, _)| event.id() == *id)
                    .map(|(_, _, result)| result.as_ref().map_or(1, |h| u64::from(h.attempts)))
                    .sum();
                (*id, ended.count() as u64 + lost)
            })
            .collect();
        let lost = (played.answers_lost.first()).map(|(_, event, _)| event.id().to_string());
        // What the spec made of an event decides how it may end: one whose every attempt its setup
        // fails (`attempt_probes`) is given up on; one for a card never issued, refused.
        let endless =
            (cards.failed_beyond(MOST_ATTEMPTS).await).map_err(Violation::setup(during))?;
        let gives_up = ids.iter().find(|id| endless.iter().any(|e| e == *id));
        let refused = events
            .iter()
            .find(|event| !CARDS.contains(&event.card_id()));
        let expect = Expect {
            answer_lost: lost.as_deref(),
            gives_up: gives_up.copied(),
            refused: refused.map(Authorization::id),
        };
        // A lone delivery has no interleaving to show: its message says what it returned.
        let traced = spec.sessions.len() > 1;
        let trace = traced.then_some(&mut played.interleaving);
        judge_all(cards, &delivered, &attempts, expect, during, trace).await?;
        if one_after_another(spec) {
            let injected = (cards.failed_beyond(0).await).map_err(Violation::setup(during))?;
            let trace = traced.then(|| played.interleaving.trace());
            retried_only_conflicts(&delivered, &injected)
                .map_err(Violation::caught(during, trace))?;
        }
        if permutation
            .steps
            .iter()
            .all(|step| spec.fault_target(step).is_none() && spec.cut_target(step).is_none())
        {
            return Ok(());
        }
        played.end(during)
    }
    // ANCHOR_END: play
}

/// Whether the spec plays its deliveries one after another: it has no session but theirs and
/// no fault, so each runs to its end before the next starts, and none can conflict with another.
fn one_after_another(spec: &Spec) -> bool {
    let delivering = spec.deliveries().len() == spec.sessions.len();
    let faulted = (spec.sessions.iter().flat_map(|s| &s.steps)).any(|step| {
        spec.fault_target(&step.name).is_some() || spec.cut_target(&step.name).is_some()
    });
    delivering && !faulted
}

/// One delivery after another, nothing conflicts but what the spec injects (`injected`, the
/// events whose attempts it fails): a delivery that ran its transaction more than once, and whose
/// count the database's agrees with (the rule has checked the totals), retried an error that
/// was not 40001 or 40P01, whatever it reported in the end.
fn retried_only_conflicts(
    delivered: &[Delivered],
    injected: &[String],
) -> Result<(), ViolationKind> {
    for (n, (event, result)) in delivered.iter().enumerate() {
        let Ok(handled) = result else { continue };
        if handled.attempts > 1 && !injected.iter().any(|id| id == event.id()) {
            return Err(ViolationKind::RetriedWithoutAConflict {
                event: event.id().into(),
                copy: delivered[..n].iter().any(|(e, _)| e.id() == event.id()),
                attempts: u64::from(handled.attempts),
                reported: described(result).into(),
            });
        }
    }
    Ok(())
}
