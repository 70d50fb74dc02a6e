//! Lesson 13's tests, each a story from chapter 13 and each a spec (`specs/*.spec`): a fresh
//! database with one customer (two cards, one shared limit) and each event's attempts counted
//! (`ready`), the spec's deliveries, then the rule over what the cards and the decisions show.

mod specs;

pub use specs::your_events;
pub(crate) use specs::{FEED, ids};

use kit::KitError;

use crate::cards::{Cards, Observed};
use crate::judge::{Delivered, Expect, verdict};
use crate::{Authorization, Delivery, Violation};

/// The customer every scenario's authorizations draw on, and its two cards.
const CUSTOMER: &str = "cus-1";
pub(crate) const CARDS: [&str; 2] = ["card-1", "card-2"];

/// Readies `cards`' database for authorizations `events`: the customer and its cards, nothing
/// spent, and each event's attempts counted (a spec's setup may then fail some of them).
pub(crate) async fn ready(cards: &mut Cards, events: &[&str]) -> Result<(), KitError> {
    cards.customer(CUSTOMER, &CARDS).await?;
    for event in events {
        cards.count_attempts(event).await?;
    }
    Ok(())
}

/// How a trace shows a delivery.
fn shown(event: &Authorization) -> String {
    format!(
        "authorize({} {} cents on {})",
        event.id(),
        event.amount_cents(),
        event.card_id()
    )
}

/// How a trace shows what a delivery returned.
pub(crate) fn described(result: &Result<crate::Handled, sqlx::Error>) -> String {
    match result {
        Ok(handled) => format!(
            "{:?} after {} attempt(s)",
            handled.outcome, handled.attempts
        ),
        Err(_) => kit::describe_outcome(result),
    }
}

/// What the deliveries left, and the attempts the database saw for each of `events` (less
/// `uncounted`, attempts made by deliveries whose results the scenario sets apart), noted in
/// the trace when the scenario has one; then the verdict.
pub(crate) async fn judge_all(
    cards: &Cards,
    delivered: &[Delivered],
    events: &[(&str, u64)],
    expect: Expect<'_>,
    during: Delivery,
    interleaving: Option<&mut kit::Interleaving>,
) -> Result<(), Violation> {
    let observed: Observed = (cards.observe(CUSTOMER).await).map_err(Violation::setup(during))?;
    let mut attempts = Vec::new();
    for (event, uncounted) in events {
        let seen = (cards.attempts(event).await).map_err(Violation::setup(during))?;
        attempts.push((event.to_string(), seen.saturating_sub(*uncounted)));
    }
    let trace = interleaving.map(|interleaving| {
        interleaving.note(observed.summary());
        let seen: Vec<String> = (attempts.iter())
            .map(|(event, n)| format!("{event} {n}"))
            .collect();
        interleaving.note(format!("attempts the database saw: {}", seen.join(", ")));
        interleaving.trace().clone()
    });
    verdict(
        &observed,
        delivered,
        &attempts,
        expect,
        during,
        trace.as_ref(),
    )?;
    if let Some(trace) = &trace {
        kit::passing_trace(trace);
    }
    Ok(())
}
