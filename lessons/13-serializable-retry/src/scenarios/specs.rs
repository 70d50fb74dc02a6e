//! The lesson's scripted scenarios are data, `specs/*.spec`, and this is how every one of them
//! is played, a student's own included (`cargo workbook break 13`): a fresh database with the
//! customer and its two cards, each event's attempts counted, the spec's sessions in its order
//! (the kit's engine), then the rule (`judge.rs`) over what the cards, the decisions and each
//! delivery said.

use kit::spec::{Permutation, Spec, SpecError};

use super::{described, judge_all, shown, with_customer};
use crate::judge::{Delivered, Expect};
use crate::{Authorization, Delivery, Handler, Subject, Violation};

kit::lesson_specs! {
    folder: "lessons/13-serializable-retry",
    files: [
        ("write_skew.spec", include_str!("../../specs/write_skew.spec")),
        ("lost_update.spec", include_str!("../../specs/lost_update.spec")),
        ("copy_race.spec", include_str!("../../specs/copy_race.spec")),
        ("failed.spec", include_str!("../../specs/failed.spec")),
    ],
    check: |spec| your_events(spec).map(drop),
    yours: "the authorizations were delivered in the order your spec gives (a scripted interleaving)",
}

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
    let read = |json: &str| Authorization::from_json(json).map_err(|e| e.to_string());
    let events = spec.events("13", read)?;
    Ok(events.into_iter().map(|(_, _, event)| event).collect())
}

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject`, then judges it. A delivery a fault ended is
/// set apart, and its attempt is not counted: it ended with its fault.
async fn play<H: Handler>(
    subject: Subject<H>,
    spec: &Spec,
    permutation: &Permutation,
    during: Delivery,
) -> Result<(), Violation> {
    let events = your_events(spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let mut ids: Vec<&str> = Vec::new();
    for event in &events {
        if !ids.contains(&event.id()) {
            ids.push(event.id());
        }
    }
    let (db, cards) = with_customer(&subject, during, &ids).await?;
    let read = |json: &str| Authorization::from_json(json).map_err(|e| e.to_string());
    let mut played = kit::spec::played::play(
        &db,
        spec,
        permutation,
        &subject.handler,
        shown,
        read,
        described,
        during,
    )
    .await?;
    let delivered: Vec<Delivered> = (played.delivered.drain(..))
        .map(|(_, event, result)| (event, result))
        .collect();
    let attempts: Vec<(&str, u64)> = (ids.iter())
        .map(|id| {
            let ended = (played.ended.iter()).filter(|(_, event, _)| event.id() == *id);
            (*id, ended.count() as u64)
        })
        .collect();
    let expect = Expect::default();
    let trace = Some(&mut played.interleaving);
    judge_all(&cards, &delivered, &attempts, expect, during, trace).await?;
    if permutation
        .steps
        .iter()
        .all(|step| spec.fault_target(step).is_none())
    {
        return Ok(());
    }
    played.unless_failure_hidden(during)
}
// ANCHOR_END: play
