//! The lesson's scripted scenarios are data, `specs/*.spec`, and this is how every one of them
//! is played, a student's own included (`cargo workbook break 01`): on a fresh database with
//! each event's account open at zero (`lesson.rs`), the spec's sessions in its order (the kit's
//! engine), or its workers released together round after round (the kit's barrier), then the
//! rule (`judge.rs`) over what the account, `processed_events` and each delivery said.

use kit::spec::{Feed, Run, Spec, SpecError};
use kit::{Common, TestDatabase};

use crate::judge::judge_account;
use crate::ledger::Ledger;
use crate::ledger::Observed;
use crate::{CreditEvent, Delivery, Handler, Outcome, Subject, Violation, ViolationKind};

/// How the specs reach the handler (`deliver {JSON}`, read as `cargo workbook deliver 01` reads
/// a credit), and how a trace shows each.
pub const FEED: Feed<CreditEvent, Result<Outcome, sqlx::Error>> = Feed::new(
    |json| CreditEvent::from_json(json).map_err(|e| e.to_string()),
    shown,
);

/// The different events a spec delivers, in its order: every delivery of one event id carries
/// the same event. The rule judges one event delivered more than once; an event for another
/// account is a neighbour, judged by the same rule over its own account; and several different
/// events for one account must each credit it, so each of those is delivered once (the balance
/// cannot say which of them a second credit belongs to).
pub fn your_events(spec: &Spec) -> Result<Vec<CreditEvent>, SpecError> {
    let id = |event: &CreditEvent| event.id().to_string();
    let named = |event: &CreditEvent| format!("{} for {}", event.id(), event.account());
    let events = spec.one_event_each("lesson 01", FEED.read, id, named, "event id")?;
    for (account, shared) in by_account(&events).into_iter().filter(|(_, e)| e.len() > 1) {
        for event in shared {
            let deliveries = spec.deliveries();
            let mut of_it = (deliveries.iter())
                .filter(|(_, _, json)| (FEED.read)(json).is_ok_and(|e| e.id() == event.id()));
            if let (Some(_), Some((session, line, _))) = (of_it.next(), of_it.next()) {
                return Err(SpecError {
                    line: *line,
                    message: format!(
                        "{session} delivers {} again, and {account} has other events: lesson \
                         01's rule judges several events for one account only when each is \
                         delivered once, since the balance cannot say whose credit it holds",
                        event.id()
                    ),
                });
            }
        }
    }
    for permutation in spec.permutations.iter().filter(|p| p.barrier.is_some()) {
        let released = spec.released_deliveries(permutation, 1);
        let released = distinct(released.iter().filter_map(|json| (FEED.read)(json).ok()));
        if let Some((account, _)) = by_account(&released).into_iter().find(|(_, e)| e.len() > 1) {
            return Err(SpecError {
                line: permutation.line,
                message: format!(
                    "the workers released together make each of this permutation's deliveries \
                     more than once, and two of them are different events for {account}: lesson \
                     01's rule judges several events for one account only when each is \
                     delivered once"
                ),
            });
        }
    }
    Ok(events)
}

/// `events` without a second copy of any, in the order they first appear.
fn distinct(events: impl Iterator<Item = CreditEvent>) -> Vec<CreditEvent> {
    let mut distinct: Vec<CreditEvent> = Vec::new();
    for event in events {
        if !distinct.iter().any(|seen| seen.id() == event.id()) {
            distinct.push(event);
        }
    }
    distinct
}

/// `events` grouped by account, in the order each account first appears.
fn by_account(events: &[CreditEvent]) -> Vec<(&str, Vec<&CreditEvent>)> {
    let mut accounts: Vec<(&str, Vec<&CreditEvent>)> = Vec::new();
    for event in events {
        match accounts
            .iter_mut()
            .find(|(account, _)| *account == event.account())
        {
            Some((_, same)) => same.push(event),
            None => accounts.push((event.account(), vec![event])),
        }
    }
    accounts
}

/// How the trace shows a delivery.
pub(super) fn shown(event: &CreditEvent) -> String {
    format!("apply_credit({}, +{})", event.id(), event.amount_cents())
}

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject` on `db` (each event's account open at zero),
/// then judges it. What a delivery a fault ended reported is judged first: a sender that hears
/// "applied" delivers no more, so the redelivery the spec plays after it is one a real sender
/// would not make. Then the rule, for each event over its own account, and last, the waits: a
/// delivery the spec expects to wait that decided while the first delivery's transaction was
/// still open has guessed, and one for another account that waited was held up by a lock on a
/// neighbour.
pub(crate) async fn play<H: Handler>(
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
        let waited_on_a_delivery =
            (hidden.waited_on.iter()).any(|on| spec.deliveries().iter().any(|(s, _, _)| s == on));
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

/// One round of `specs/released.spec`: what each worker released together delivered and
/// returned. Each account, opened at zero this round, is judged by the rule as in [`play`]
/// (`judge`, or `judge_unopened` for a student's account that does not exist). A barrier round
/// has no script, so its message has no trace.
pub(crate) async fn judge_released(
    ledger: &Ledger,
    delivered: Vec<(CreditEvent, Result<Outcome, sqlx::Error>)>,
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
