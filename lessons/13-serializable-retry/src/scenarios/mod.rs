//! Lesson 13's tests, each a story from chapter 13. Every scenario takes the subject (a handler
//! and its schema), builds a fresh database with one customer (two cards, one shared limit),
//! counts each event's attempts in the database, delivers the authorizations, and judges what
//! the cards and the decisions show.

mod sequential;
mod specs;

pub use sequential::decided_one_after_another;
pub use specs::your_events;
pub(crate) use specs::{FEED, ids, play};

use kit::{KitError, TestDatabase};

use crate::cards::{Cards, Observed};
use crate::judge::{Delivered, Expect, verdict};
use crate::{Authorization, Delivery, Handler, Subject, Violation};

/// The customer every scenario's authorizations draw on, and its two cards.
const CUSTOMER: &str = "cus-1";
const CARDS: [&str; 2] = ["card-1", "card-2"];

/// Readies `cards`' database for authorizations `events`: the customer and its cards, nothing
/// spent, and each event's attempts counted (a spec's setup may then fail some of them).
pub(crate) async fn ready(cards: &mut Cards, events: &[&str]) -> Result<(), KitError> {
    cards.customer(CUSTOMER, &CARDS).await?;
    for event in events {
        cards.count_attempts(event).await?;
    }
    Ok(())
}

/// A fresh database with the subject's schema, the test's own session on it, and [`ready`] for
/// `events`: for the scenario still in Rust.
async fn with_customer<H: Handler>(
    subject: &Subject<H>,
    during: Delivery,
    events: &[&str],
) -> Result<(TestDatabase, Cards), Violation> {
    let (db, mut cards) = kit::prepare(&subject.schema, during, Cards::open).await?;
    (ready(&mut cards, events).await).map_err(Violation::setup(during))?;
    Ok((db, cards))
}

/// Every authorization a scenario delivers arrives as the card network writes it, as JSON,
/// through the parser a real issuer would use at its edge. Its id names the request, not the
/// delivery: a redelivery carries the same one.
fn authorization(id: &str, card_id: &str, amount_cents: i64) -> Authorization {
    let wire = serde_json::json!({
        "id": id,
        "type": crate::event::TYPE,
        "aggregate_id": CUSTOMER,
        "payload": { "customer_id": CUSTOMER, "card_id": card_id, "amount_cents": amount_cents },
        "occurred_at": "2026-07-14T09:15:40Z",
    });
    Authorization::from_json(&wire.to_string()).expect("the scenarios' events are valid")
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
fn described(result: &Result<crate::Handled, sqlx::Error>) -> String {
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
async fn judge_all(
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
