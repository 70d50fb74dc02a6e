//! The lesson's scripted scenarios as data (`specs/*.spec`), and the one way they are played:
//! a fresh database with the customer and its cards, the spec's sessions in its order, then
//! the rule, over what every delivery the spec did not end by a fault reported.

use kit::Fault;
use kit::spec::{Permutation, Spec, SpecError};

use super::{described, judge_all, shown, with_customer};
use crate::judge::{Delivered, Expect};
use crate::{Authorization, Delivery, Handler, Subject, Violation};

/// One of the lesson's specs (`specs/NAME`, its `text` included at build time). A shipped spec
/// that does not parse is the maintainers' bug, caught by every test that plays it.
pub(super) fn spec(name: &str, text: &str) -> Spec {
    Spec::parse(text)
        .and_then(|spec| your_events(&spec).map(|_| spec))
        .unwrap_or_else(|e| panic!("lessons/13-serializable-retry/specs/{name}, {e}"))
}

/// Each delivering session's authorization, read as `cargo workbook deliver 13` reads a line.
/// A spec whose deliveries the lesson cannot read is refused with the session's line.
pub fn your_events(spec: &Spec) -> Result<Vec<(String, Authorization)>, SpecError> {
    let mut events = Vec::new();
    for (session, line, json) in spec.deliveries() {
        let event = Authorization::from_json(json).map_err(|why| SpecError {
            line,
            message: format!("{session} delivers what lesson 13 refuses: {why}"),
        })?;
        events.push((session.to_string(), event));
    }
    if events.is_empty() {
        return Err(SpecError {
            line: 1,
            message: "no session delivers anything: a spec races deliveries of authorizations, \
                      so at least one step is `deliver {…}`"
                .into(),
        });
    }
    Ok(events)
}

/// A spec of the student's own (`cargo workbook break 13 FILE`), judged by the lesson's rule.
pub async fn your_spec<H: Handler>(
    subject: Subject<H>,
    spec: &Spec,
    permutation: &Permutation,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "the authorizations were delivered in the order your spec gives (a scripted \
         interleaving)",
    );
    play(subject, during, spec, permutation).await
}

/// Plays `permutation` of `spec` against `subject`, for the customer and the events the spec
/// delivers; then judges what they left. A delivery ended by a fault is set apart, and its
/// attempt is not counted: it ended with its fault.
pub(super) async fn play<H: Handler>(
    subject: Subject<H>,
    during: Delivery,
    spec: &Spec,
    permutation: &Permutation,
) -> Result<(), Violation> {
    let events = your_events(spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let mut ids: Vec<&str> = Vec::new();
    for (_, event) in &events {
        if !ids.contains(&event.id()) {
            ids.push(event.id());
        }
    }
    let (db, cards) = with_customer(&subject, during, &ids).await?;
    (spec.set_up(&db).await).map_err(Violation::setup(during))?;
    let read = |json: &str| Authorization::from_json(json).map_err(|e| e.to_string());
    let script = (spec.script(&subject.handler, shown, read))
        .unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let (mut interleaving, ran) =
        kit::play(&db, script, &permutation.order(), described, during).await?;
    let faulted: Vec<&str> = (permutation.steps.iter())
        .filter_map(|step| spec.fault_target(step))
        .collect();
    let event_of = |worker: &str| {
        let (_, event) = (events.iter().find(|(w, _)| w == worker))
            .expect("every worker is a delivering session");
        event.clone()
    };
    let ended: Vec<(String, Fault)> = (faulted.iter())
        .filter(|worker| ran.killed(worker) || ran.cancelled(worker))
        .map(|worker| {
            let fault = if ran.killed(worker) {
                Fault::Killed
            } else {
                Fault::Cancelled
            };
            (worker.to_string(), fault)
        })
        .collect();
    let (kept, hidden) = ran.apart_from_every_failed(&faulted);
    let delivered: Vec<Delivered> = (kept.into_iter())
        .map(|(worker, result)| (event_of(&worker), result))
        .collect();
    let attempts: Vec<(&str, u64)> = (ids.iter())
        .map(|id| {
            let uncounted = (ended.iter())
                .filter(|(worker, _)| event_of(worker).id() == *id)
                .count();
            (*id, uncounted as u64)
        })
        .collect();
    judge_all(
        &cards,
        &delivered,
        &attempts,
        Expect::default(),
        during,
        Some(&mut interleaving),
    )
    .await?;
    if faulted.is_empty() {
        return Ok(());
    }
    let hidden = hidden.into_iter().next();
    let fault = (hidden.as_ref())
        .and_then(|(worker, _)| ended.iter().find(|(w, _)| w == worker))
        .map_or(Fault::Killed, |(_, fault)| *fault);
    Violation::unless_failure_hidden(
        hidden.map(|(_, reported)| reported),
        fault,
        during,
        interleaving.trace(),
    )
}
