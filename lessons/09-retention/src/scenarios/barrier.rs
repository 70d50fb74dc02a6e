use chrono::{DateTime, NaiveTime, TimeDelta, Utc};

use super::{DAY, credit, deliver, failed, prepare, t0};
use crate::judge::{nothing_kept_too_long, once};
use crate::{Credit, Delivery, Handler, Outcome, Prune, Subject, Violation};

/// The days a barrier test plays, one round each: enough for the first rows to pass the window
/// and the retention limit while copies of the newer ones keep arriving.
pub const BARRIER_DAYS: usize = 8;

/// Rows received long before the first day, so that the first rounds' prunes have real work
/// (several batches) while the deliveries run.
const OLD_BACKLOG: i64 = 3_000;

/// How many days back the copies reach: inside the redelivery window, always.
const COPIES_FROM_DAYS: usize = 2;

// ANCHOR: barrier
/// Every day, two new credits are delivered an hour before midnight; then, a second before
/// midnight, `workers` tasks wait at a barrier and are released together: one runs the prune,
/// the others deliver a copy of a credit from the last days, or that day's new credit, whose
/// copies race each other across midnight (half are received a second before it, half a second
/// after). Afterwards every credit delivered so far was applied once, and nothing is kept past
/// the retention limit. The first day that catches a violation ends the test.
pub async fn barrier<H: Handler>(subject: Subject<H>, workers: usize) -> Result<(), Violation> {
    let setup = Delivery::Barrier {
        workers,
        round: 0,
        rounds: BARRIER_DAYS,
    };
    let (_db, ledger, pool) = prepare(&subject, workers as u32, setup).await?;
    (ledger
        .backlog("evt-old-", OLD_BACKLOG, t0() - TimeDelta::days(10))
        .await)
        .map_err(Violation::setup(setup))?;
    // Every credit delivered so far, with the day it was first delivered on.
    let mut delivered: Vec<(Credit, usize)> = Vec::new();
    for day in 1..=BARRIER_DAYS {
        let during = Delivery::Barrier {
            workers,
            round: day,
            rounds: BARRIER_DAYS,
        };
        // A second before midnight, whatever day the scenarios' clock starts on.
        let midnight = (t0() + DAY * day as i32)
            .date_naive()
            .and_time(NaiveTime::MIN)
            .and_utc();
        let now = midnight - TimeDelta::seconds(1);
        for letter in ["a", "b"] {
            let event = credit(&format!("evt-{day}{letter}"), now - TimeDelta::hours(2));
            deliver(&pool, &event, midnight - TimeDelta::hours(1), during).await?;
            delivered.push((event, day));
        }
        // Task 0 prunes; odd tasks deliver a copy of a recent credit, even ones copies of the
        // day's new credit, on both sides of midnight.
        let recent: Vec<Credit> = (delivered.iter())
            .filter(|(_, first)| day - first <= COPIES_FROM_DAYS)
            .map(|(event, _)| event.clone())
            .collect();
        let new = credit(&format!("evt-{day}-new"), now);
        let work: Vec<Option<(Credit, DateTime<Utc>)>> = (0..workers)
            .map(|task| match task {
                0 => None,
                task if task % 2 == 1 => Some((recent[task % recent.len()].clone(), now)),
                task if task % 4 == 0 => Some((new.clone(), now)),
                _ => Some((new.clone(), midnight + TimeDelta::seconds(1))),
            })
            .collect();
        let results = kit::release_together(workers, |task| {
            let (pool, subject, event) = (pool.clone(), subject.clone(), work[task].clone());
            async move {
                match event {
                    None => Err(subject.handler.call(pool, Prune::at(now)).await),
                    Some((event, at)) => Ok(deliver(&pool, &event, at, during).await),
                }
            }
        })
        .await;
        for result in results {
            match result {
                Err(Err(error)) => return Err(failed(&error, during)),
                Ok(Err(violation)) => return Err(violation),
                Err(Ok(_)) | Ok(Ok(Outcome::Applied | Outcome::AlreadyApplied)) => {}
            }
        }
        if workers > 2 {
            delivered.push((new, day));
        }
        for (event, _) in &delivered {
            once(&ledger, event, None, during).await?;
        }
        nothing_kept_too_long(&ledger, now, during).await?;
    }
    Ok(())
}
// ANCHOR_END: barrier
