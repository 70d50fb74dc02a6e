//! The lesson's tests, each one a story from chapter 1. Every scenario takes the subject (a
//! handler and its schema), builds a fresh database, delivers an event, and judges the result.

mod specs;
mod two_events;
mod unknown_account;

pub use specs::your_events;
pub(crate) use specs::{FEED, judge_released, play};
pub use two_events::two_events_race_for_one_account;
pub use unknown_account::unknown_account;

use kit::TestDatabase;

use crate::ledger::Ledger;
use crate::{CreditEvent, Delivery, Handler, Subject, Violation};

/// The amount every scenario credits: the balance divided by it counts the credits.
const AMOUNT_CENTS: i64 = 100;

/// A fresh database with the subject's schema, and the test's own session on it.
async fn prepare<H: Handler>(
    subject: &Subject<H>,
    during: Delivery,
) -> Result<(TestDatabase, Ledger), Violation> {
    kit::prepare(&subject.schema, during, Ledger::open).await
}

/// The same, with the account `acc-1` opened at zero: where most scenarios start.
async fn with_account<H: Handler>(
    subject: &Subject<H>,
    during: Delivery,
) -> Result<(TestDatabase, Ledger), Violation> {
    let (db, ledger) = prepare(subject, during).await?;
    ledger
        .open_account("acc-1")
        .await
        .map_err(Violation::setup(during))?;
    Ok((db, ledger))
}

/// Every event a scenario delivers arrives as a broker would deliver it, as JSON, and goes
/// through the parser a real consumer would use at its edge.
fn credit_event(id: &str, account: &str) -> CreditEvent {
    let wire = serde_json::json!({ "id": id, "account": account, "amount_cents": AMOUNT_CENTS });
    CreditEvent::from_json(&wire.to_string()).expect("the scenarios' events are valid")
}
