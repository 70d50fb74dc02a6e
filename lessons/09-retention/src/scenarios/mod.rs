//! Lesson 09's tests, each a story from chapter 9. Every scenario takes the subject (a prune
//! and the schema its crate defines), builds a fresh database, delivers credits through the
//! given handler at times it chooses, runs the prune at times it chooses, and judges what the
//! ledger and processed_events show. The clock is a parameter: no scenario sleeps. The scripted
//! ones are specs (`specs/`, played by `lesson.rs`).

mod barrier;
mod batches;
mod horizon;
mod midnight;
mod sequential;
mod specs;

pub use barrier::{BARRIER_DAYS, barrier};
pub use batches::the_backlog_is_pruned_in_bounded_batches;
pub use horizon::{
    a_copy_at_the_end_of_the_window_is_recognised, a_late_event_is_kept_for_the_window,
    rows_past_the_retention_limit_are_removed,
};
pub use midnight::a_copy_after_midnight_is_recognised;
pub use sequential::a_copy_after_a_prune_is_recognised;
pub use specs::{FEED, delivered};

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use kit::{Common, TestDatabase};
use sqlx::PgPool;

use crate::judge::{Story, once};
use crate::ledger::Ledger;
use crate::{
    Credit, Delivered, Delivery, Handler, Outcome, Prune, Pruned, Subject, Violation,
    ViolationKind, handle,
};

/// When the scenarios' stories begin: a Monday morning, in the month the exercise's migration
/// has a partition for each day of.
pub(crate) fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 9, 0, 0).unwrap()
}

/// How the messages and traces show a time.
pub(crate) fn shown_time(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// How a trace shows a run of the prune.
fn shown(prune: &Prune) -> String {
    format!("prune(at {})", shown_time(prune.now()))
}

/// A fresh database with the subject's schema, the test's own view of it, and a pool for the
/// deliveries and the prune.
async fn prepare<H: Handler>(
    subject: &Subject<H>,
    connections: u32,
    during: Delivery,
) -> Result<(TestDatabase, Ledger, PgPool), Violation> {
    let (db, ledger) = kit::prepare(&subject.schema, during, Ledger::open).await?;
    let pool = db
        .pool(connections)
        .await
        .map_err(Violation::setup(during))?;
    Ok((db, ledger, pool))
}

/// A credit of 5.00 to acc-1 that happened at `occurred_at`.
fn credit(id: &str, occurred_at: DateTime<Utc>) -> Credit {
    Credit {
        id: id.to_string(),
        account: "acc-1".to_string(),
        amount_cents: 500,
        occurred_at,
    }
}

/// One copy of `event`, received at `at`, through the given handler. The handler is correct;
/// when it fails, the table the student's migration made refused it.
async fn deliver(
    pool: &PgPool,
    event: &Credit,
    at: DateTime<Utc>,
    during: Delivery,
) -> Result<Outcome, Violation> {
    let delivered = Delivered {
        event: event.clone(),
        received_at: at,
    };
    handle(pool, &delivered).await.map_err(|error| Violation {
        kind: ViolationKind::DeliveryFailed {
            error: kit::describe_sqlx(&error),
        },
        during,
        trace: None,
    })
}

/// One run of the subject's prune at `now`.
/// Runs the prune at `now`, with nothing else running, and holds it to the count it reports:
/// the rows of processed_events that were gone once it returned.
async fn prune<H: Handler>(
    subject: &Subject<H>,
    (ledger, pool): (&Ledger, &PgPool),
    now: DateTime<Utc>,
    during: Delivery,
) -> Result<Pruned, Violation> {
    let before = (ledger.row_count().await).map_err(Violation::setup(during))?;
    let pruned = (subject.handler.call(pool.clone(), Prune::at(now)).await)
        .map_err(|error| failed(&error, during))?;
    let after = (ledger.row_count().await).map_err(Violation::setup(during))?;
    let deleted = before - after;
    if i64::try_from(pruned.rows).ok() != Some(deleted) {
        return Err(Violation {
            kind: ViolationKind::PruneMisreported {
                reported: pruned.rows,
                deleted,
            },
            during,
            trace: None,
        });
    }
    Ok(pruned)
}

pub(crate) fn failed(error: &sqlx::Error, during: Delivery) -> Violation {
    Violation {
        kind: ViolationKind::Common(Common::failed(error)),
        during,
        trace: None,
    }
}

/// Delivers `event` at `received`, prunes at `pruned`, then delivers a copy at `again`, and
/// judges: the copy changed nothing.
async fn copy_after_a_prune<H: Handler>(
    subject: &Subject<H>,
    (ledger, pool): (&Ledger, &PgPool),
    event: &Credit,
    [received, pruned, again]: [DateTime<Utc>; 3],
    during: Delivery,
) -> Result<(), Violation> {
    prune(subject, (ledger, pool), pruned, during).await?;
    let row_gone_after_prune = ledger
        .rows(&event.id)
        .await
        .map_err(Violation::setup(during))?
        .is_empty();
    deliver(pool, event, again, during).await?;
    let story = Story {
        received: shown_time(received),
        pruned: shown_time(pruned),
        again: shown_time(again),
        row_gone_after_prune,
    };
    once(ledger, event, Some(&story), during).await
}

/// A day, as the barrier's rounds and the stories count them.
const DAY: TimeDelta = TimeDelta::days(1);
