//! The lesson's scripted scenarios are data, `specs/*.spec`, and this is how every one of them
//! is played, a student's own included (`cargo workbook break 13`): on a fresh database with
//! the customer and its two cards, each event's attempts counted (`lesson.rs`), the spec's sessions in its order
//! (the kit's engine), then the rule (`judge.rs`) over what the cards, the decisions and each
//! delivery said.

use kit::TestDatabase;
use kit::spec::{Feed, Run, Spec, SpecError};

use super::{CARDS, described, judge_all, shown};
use crate::cards::Cards;
use crate::judge::{Delivered, Expect};
use crate::violation::MOST_ATTEMPTS;
use crate::{Authorization, Delivery, Handled, Handler, Subject, Violation, ViolationKind};

/// How the specs reach the handler (`deliver {JSON}`, read as `cargo workbook deliver 13` reads
/// a line), how a trace shows each, and what it returned.
pub const FEED: Feed<Authorization, Result<Handled, sqlx::Error>> = Feed::new(
    |json| Authorization::from_json(json).map_err(|e| e.to_string()),
    shown,
)
.describing(described);

/// Each delivery's authorization, read as `cargo workbook deliver 13` reads a line. A spec whose
/// deliveries the lesson cannot read is refused with the step's line.
pub fn your_events(spec: &Spec) -> Result<Vec<Authorization>, SpecError> {
    if let Some(permutation) = spec.permutations.iter().find(|p| !p.waits.is_empty()) {
        return Err(SpecError {
            line: permutation.line,
            message: "`expect wait` asks a delivery to be seen waiting, which lesson 13's rule \
                      does not judge (a retry may or may not wait): leave it out"
                .into(),
        });
    }
    spec.events("lesson 13", FEED.read)
}

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject` on `db` (the customer, its cards, and each
/// event's attempts counted), then judges it. A delivery a fault ended is set apart, and its
/// attempt is not counted: it ended with its fault. So is one whose answer to its COMMIT was
/// lost: its decision stands, claimed by nobody.
pub(crate) async fn play<H: Handler>(
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
    let endless = (cards.failed_beyond(MOST_ATTEMPTS).await).map_err(Violation::setup(during))?;
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
        retried_only_conflicts(&delivered, &injected).map_err(Violation::caught(during, trace))?;
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

/// The authorizations' ids, each once, in the order the spec first delivers it.
pub(crate) fn ids(events: &[Authorization]) -> Vec<&str> {
    let mut ids: Vec<&str> = Vec::new();
    for event in events {
        if !ids.contains(&event.id()) {
            ids.push(event.id());
        }
    }
    ids
}
