//! Lesson 07's tests, each a story from chapter 7, and the soak. Every scenario places orders,
//! appends payment verdicts to the log, lets a consumer poll until it has caught up, and judges
//! the orders against the model: every event of the log handled exactly once, in order. The
//! scripted ones are specs (`specs/`, played by `lesson.rs`).

mod barrier;
mod grows;
mod other_group;
mod sequential;
pub(crate) mod soak;
mod specs;

pub use barrier::barrier;
pub use grows::the_log_grows_between_polls;
pub use other_group::another_group_is_not_held_up;
pub use sequential::consumed_once;
pub use soak::{QUICK, SOAK, Soak, SoakReport, soak, soak_test};
pub use specs::{FEED, delivered};

use kit::{TestDatabase, Trace};
use sqlx::PgPool;

use crate::judge::verdict;
use crate::log::{Log, Verdict};
use crate::{Delivery, Handler, Poll, Polled, Subject, Violation};

/// The consumer group every scenario polls as.
pub(crate) const GROUP: &str = "saga";

/// Another group of the same log (another service reading the same events), registered in every
/// scenario and polled in none: its offset must stay where it started.
pub(crate) const NEIGHBOUR: &str = "ledger";

/// How many events a poll takes in the stories: small, so a batch spans several orders.
const MAX: i64 = 4;

/// Polls before a consumer that keeps taking events is called stuck.
const MAX_POLLS: usize = 10_000;

/// A fresh database with the subject's schema, `orders` placed, the group and its neighbour
/// registered, and the test's own session on it.
async fn prepare<H: Handler>(
    subject: &Subject<H>,
    during: Delivery,
    orders: &[String],
) -> Result<(TestDatabase, Log), Violation> {
    let (db, log) = kit::prepare(&subject.schema, during, Log::open).await?;
    (log.set_up(orders, &[GROUP, NEIGHBOUR]).await).map_err(Violation::setup(during))?;
    Ok((db, log))
}

pub(crate) fn order_ids(count: usize) -> Vec<String> {
    (1..=count).map(|n| format!("ord-{n}")).collect()
}

/// How a trace shows a poll.
fn shown(poll: &Poll) -> String {
    format!("poll({}, max {})", poll.group(), poll.max())
}

/// Polls as a restarted consumer does, until a poll takes nothing or fails: the polls' results,
/// and whether it stopped by itself.
async fn catch_up<H: Handler>(
    subject: &Subject<H>,
    pool: &PgPool,
    max: i64,
) -> (Vec<Result<Polled, sqlx::Error>>, bool) {
    let mut polls = Vec::new();
    for _ in 0..MAX_POLLS {
        let result = subject
            .handler
            .call(pool.clone(), Poll::new(GROUP, max))
            .await;
        let done = !matches!(result, Ok(Polled { handled }) if handled > 0);
        polls.push(result);
        if done {
            return (polls, true);
        }
    }
    (polls, false)
}

/// After a script: a restarted consumer catches up, `max` events a poll, on a connection of its
/// own, and the verdict judges the script's polls and its own, with the script's trace.
pub(crate) async fn catch_up_then_verdict<H: Handler>(
    subject: &Subject<H>,
    (db, log): (&TestDatabase, &Log),
    (orders, appended): (&[String], &[Verdict]),
    mut polls: Vec<Result<Polled, sqlx::Error>>,
    (max, one_at_a_time): (i64, bool),
    during: Delivery,
    interleaving: &mut kit::Interleaving,
) -> Result<Option<Trace>, Violation> {
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    polls.extend(catch_up(subject, &pool, max).await.0);
    verdict(
        log,
        orders,
        appended,
        &polls,
        one_at_a_time,
        during,
        Some(interleaving),
    )
    .await
}
