//! The lesson's scripted scenarios are data, `specs/*.spec`: how their deliveries reach the
//! handler, and which of them, a student's own included (`cargo workbook break 01`), lesson
//! 01's rule can judge. `lesson.rs` plays and judges them.

use kit::spec::{Feed, Spec, SpecError};

use crate::{CreditEvent, Outcome};

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
pub(crate) fn by_account(events: &[CreditEvent]) -> Vec<(&str, Vec<&CreditEvent>)> {
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
