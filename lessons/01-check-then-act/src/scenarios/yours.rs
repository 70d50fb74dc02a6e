//! A spec of the student's own, played by `cargo workbook break 01 FILE`: any sessions and
//! schedule, judged by the rule every scenario of the lesson checks.

use kit::Fault;
use kit::spec::{Permutation, Spec, SpecError};

use super::{observe_into, prepare, script_of};
use crate::judge::judge;
use crate::{CreditEvent, Delivery, Handler, Subject, Violation};

/// The one event a spec delivers: the lesson's rule is about one event delivered more than
/// once, so every delivery must carry the same one. A spec that delivers two is refused, with
/// the line of the first that differs.
pub fn your_event(spec: &Spec) -> Result<CreditEvent, SpecError> {
    let mut first: Option<CreditEvent> = None;
    for (session, line, json) in spec.deliveries() {
        let event = CreditEvent::from_json(json).map_err(|why| SpecError {
            line,
            message: format!("{session} delivers what lesson 01 refuses: {why}"),
        })?;
        match &first {
            None => first = Some(event),
            Some(one) if one == &event => {}
            Some(one) => {
                return Err(SpecError {
                    line,
                    message: format!(
                        "{session} delivers {}, and an earlier session {}: lesson 01's rule \
                         judges one event delivered more than once, so every delivery carries \
                         the same one",
                        event.id(),
                        one.id()
                    ),
                });
            }
        }
    }
    first.ok_or_else(|| SpecError {
        line: 1,
        message: "no session delivers anything: a spec races deliveries of one event, so at \
                  least one step is `deliver {…}`"
            .into(),
    })
}

/// Plays `permutation` of `spec` against `subject`, on a fresh database where the event's
/// account is open at zero and the spec's setup has run; then judges what every delivery the
/// spec did not end by a fault reported, and what the account and `processed_events` hold.
pub async fn your_spec<H: Handler>(
    subject: Subject<H>,
    spec: &Spec,
    permutation: &Permutation,
) -> Result<(), Violation> {
    let during = Delivery::YourSpec;
    let event = your_event(spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let (db, ledger) = prepare(&subject, during).await?;
    (ledger.open_account(event.account()).await).map_err(Violation::setup(during))?;
    (spec.set_up(&db).await).map_err(Violation::setup(during))?;
    let script = script_of(spec, &subject.handler);
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        &permutation.order(),
        kit::describe_outcome,
        during,
    )
    .await?;
    let faulted: Vec<&str> = (permutation.steps.iter())
        .filter_map(|step| spec.fault_target(step))
        .collect();
    let fault_of = |worker: &str| match ran.killed(worker) {
        true => Fault::Killed,
        false => Fault::Cancelled,
    };
    let faults: Vec<(String, Fault)> = (faulted.iter())
        .map(|worker| (worker.to_string(), fault_of(worker)))
        .collect();
    let (kept, hidden) = ran.apart_from_every_failed(&faulted);
    let outcomes: Vec<_> = kept.into_iter().map(|(_, outcome)| outcome).collect();
    let observed = observe_into(&mut interleaving, &ledger, &event, during).await?;
    let trace = interleaving.trace();
    judge(observed, &outcomes).map_err(Violation::caught(during, Some(trace)))?;
    let hidden = hidden.into_iter().next();
    let fault = (hidden.as_ref())
        .and_then(|(worker, _)| faults.iter().find(|(w, _)| w == worker))
        .map_or(Fault::Killed, |(_, fault)| *fault);
    Violation::unless_failure_hidden(hidden.map(|(_, reported)| reported), fault, during, trace)
}
