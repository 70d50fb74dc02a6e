//! The lesson's tests, each one a story from chapter 1. Every scenario takes the subject (a
//! handler and its schema), builds a fresh database, delivers an event, and judges the result.

mod barrier;
mod failed;
mod forced;
mod gave_up;
mod other_accounts;
mod sequential;
mod two_events;
mod unknown_account;
mod yours;

pub use barrier::{BARRIER_ROUNDS, barrier, barrier_rounds};
pub use failed::{cancelled_then_redelivered, failed_spec, killed_then_redelivered};
pub use forced::{forced_interleaving, forced_spec};
pub use gave_up::{duplicate_gives_up_then_first_rolls_back, gave_up_spec};
pub use other_accounts::other_accounts_do_not_wait;
pub use sequential::sequential_redelivery;
pub use two_events::two_events_race_for_one_account;
pub use unknown_account::unknown_account;
pub use yours::{your_event, your_spec};

use kit::TestDatabase;

use crate::ledger::{Ledger, Observed};
use crate::{CreditEvent, Delivery, Handler, Subject, Violation};

/// The amount every scenario credits: the balance divided by it counts the credits.
const AMOUNT_CENTS: i64 = 100;

/// One of the lesson's specs (`specs/NAME`, its `text` included at build time). A shipped spec
/// that does not parse is the maintainers' bug, caught by every test that plays it.
fn spec(name: &str, text: &str) -> kit::spec::Spec {
    kit::spec::Spec::parse(text)
        .unwrap_or_else(|e| panic!("lessons/01-check-then-act/specs/{name}, {e}"))
}

/// `spec`'s script for `handler`, its deliveries read as `cargo workbook deliver 01` reads a
/// credit's line.
fn script_of<H: Handler>(spec: &kit::spec::Spec, handler: &H) -> kit::Script<CreditEvent, H> {
    let event = |json: &str| CreditEvent::from_json(json).map_err(|e| e.to_string());
    (spec.script(handler, forced::shown, event))
        .unwrap_or_else(|e| panic!("a spec of lesson 01, {e}"))
}

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

/// What the event's account holds once a script has played, noted at the end of its trace.
async fn observe_into(
    interleaving: &mut kit::Interleaving,
    ledger: &Ledger,
    event: &CreditEvent,
    during: Delivery,
) -> Result<Observed, Violation> {
    let account = event.account();
    let observed = (ledger.observe(account, event).await).map_err(Violation::setup(during))?;
    interleaving.note(format!(
        "{account} holds {} cents; processed_events holds {} row(s) for {}",
        observed.balance_cents,
        observed.records,
        event.id()
    ));
    Ok(observed)
}
