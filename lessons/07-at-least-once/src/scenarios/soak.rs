//! The soak: a long log, a producer appending to it while a consumer polls, and the consumer
//! killed again and again at points drawn from a seed, then restarted from the group's
//! committed offset. At the end, the orders must be exactly what handling every event once, in
//! order, makes of them.
//!
//! The seed fixes the log and the kill schedule (how long after each start the consumer dies,
//! and how); where in its work each kill lands still depends on the machine's timing. A failure
//! prints the seed, and `WORKBOOK_SOAK_SEED=<seed>` plays the same log and schedule again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kit::{KitError, TestDatabase};
use sqlx::PgPool;
use tokio::task::JoinHandle;

use super::{GROUP, order_ids, prepare};
use crate::judge::verdict;
use crate::log::{AMOUNT_CENTS, Log, Verdict};
use crate::{Delivery, Handler, Poll, Polled, Subject, Violation};

/// How big a soak is.
#[derive(Debug, Clone, Copy)]
pub struct Soak {
    /// Orders placed; each gets one to two verdicts, some contradicting, some published twice.
    pub orders: usize,
    /// How many times the consumer is killed.
    pub kills: usize,
    /// Events a poll takes.
    pub batch: i64,
}

/// The students' soak: over 10,000 events, 40 kills.
pub const SOAK: Soak = Soak {
    orders: 7_000,
    kills: 40,
    batch: 50,
};

/// A short one, for the maintainers' checks of the wrong fixes, which run every scenario of the
/// lesson for each of them: [`soak`] plays it instead of any other inside `kit::in_the_checks`.
pub const QUICK: Soak = Soak {
    orders: 600,
    kills: 12,
    batch: 20,
};

/// How the log reaches the consumer: in this many slices, each appended once the consumer is
/// within one slice of the end, so that it reads a log that grows.
const SLICES: usize = 10;

/// What a soak that passed measured.
#[derive(Debug, Clone, Copy)]
pub struct SoakReport {
    pub seed: u64,
    pub events: usize,
    pub kills: usize,
    pub elapsed: Duration,
}

impl std::fmt::Display for SoakReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "soak (seed {}): {} events consumed exactly once in {:.1} s ({:.0} events/s), \
             through {} kills",
            self.seed,
            self.events,
            self.elapsed.as_secs_f64(),
            self.events as f64 / self.elapsed.as_secs_f64(),
            self.kills
        )
    }
}

/// The verdicts for `orders`, in a shuffled order: for each order a full payment, two
/// instalments, a failure, or (when `contradicting`) two verdicts that contradict each other;
/// and about one in ten published a second time, later.
pub(crate) fn generate(
    rng: &mut fastrand::Rng,
    orders: &[String],
    contradicting: bool,
) -> Vec<Verdict> {
    let mut verdicts = Vec::new();
    for order in orders {
        let id = |k: &str| format!("{order}:{k}");
        let plan = match rng.u8(0..100) {
            0..45 => vec![Verdict::paid(&id("paid"), order, AMOUNT_CENTS)],
            45..65 => vec![
                Verdict::paid(&id("first"), order, 1000),
                Verdict::paid(&id("second"), order, AMOUNT_CENTS - 1000),
            ],
            65..80 => vec![Verdict::failed(&id("failed"), order)],
            _ if !contradicting => vec![Verdict::failed(&id("failed"), order)],
            _ => vec![
                Verdict::paid(&id("paid"), order, AMOUNT_CENTS),
                Verdict::failed(&id("failed"), order),
            ],
        };
        verdicts.extend(plan);
    }
    rng.shuffle(&mut verdicts);
    for _ in 0..verdicts.len() / 10 {
        let copy = verdicts[rng.usize(..verdicts.len())].clone();
        let later = rng.usize(..=verdicts.len());
        verdicts.insert(later, copy);
    }
    verdicts
}

/// The seed: `WORKBOOK_SOAK_SEED` to replay one, else a new one.
pub(crate) fn seed() -> u64 {
    std::env::var("WORKBOOK_SOAK_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| fastrand::u64(..))
}

// ANCHOR: soak
/// The soak, as described at the top of this file: `size` says how long.
pub async fn soak<H: Handler>(subject: Subject<H>, size: Soak) -> Result<SoakReport, Violation> {
    let size = if kit::checking() { QUICK } else { size };
    let seed = seed();
    let mut rng = fastrand::Rng::with_seed(seed);
    let orders = order_ids(size.orders);
    let appended = generate(&mut rng, &orders, true);
    let mut during = Delivery::Soak {
        seed,
        events: appended.len(),
        kills: 0,
    };
    let (db, log) = prepare(&subject, during, &orders).await?;
    let started = Instant::now();

    let produced = Arc::new(AtomicBool::new(false));
    let producer = tokio::spawn(produce(
        db.session().await,
        appended.clone(),
        produced.clone(),
    ));
    let mut polls = Vec::new();
    let mut kills = 0;
    loop {
        let mut consumer = Consumer::start(&db, &subject, size.batch, produced.clone())
            .await
            .map_err(Violation::setup(during))?;
        if kills == size.kills {
            // No kills left: this one runs until it has caught up with the whole log.
            polls.extend((&mut consumer.task).await.unwrap_or_default());
            break;
        }
        // It dies this long after it started, unless it stops first.
        let after = Duration::from_millis(rng.u64(1..=40));
        let server_first = rng.bool();
        tokio::select! {
            // Caught up with the whole log, or failed: either way, the verdict says which.
            stopped = &mut consumer.task => {
                polls.extend(stopped.unwrap_or_default());
                break;
            }
            () = tokio::time::sleep(after) => {
                kill(&db, consumer, server_first).await.map_err(Violation::setup(during))?;
                kills += 1;
                during = Delivery::Soak { seed, events: appended.len(), kills };
            }
        }
    }
    if produced.load(Ordering::SeqCst) {
        (producer.await.expect("the producer does not panic")).map_err(Violation::setup(during))?;
    } else {
        // The consumer failed before the log was complete: the producer would wait for it
        // forever.
        producer.abort();
    }
    let elapsed = started.elapsed();
    verdict(&log, &orders, &appended, &polls, false, during, None).await?;
    Ok(SoakReport {
        seed,
        events: appended.len(),
        kills,
        elapsed,
    })
}
// ANCHOR_END: soak

/// Appends `verdicts` in slices, each once the group's offset is within a slice of the log's
/// end, then says so through `produced`.
async fn produce(
    session: Result<tokio_postgres::Client, KitError>,
    verdicts: Vec<Verdict>,
    produced: Arc<AtomicBool>,
) -> Result<(), KitError> {
    let log = Log::from_client(session?);
    let slice = verdicts.len().div_ceil(SLICES);
    let mut end = 0;
    for chunk in verdicts.chunks(slice) {
        // Waits for the consumer to come near the end: a condition it watches, not a delay.
        while log.observe_offset(GROUP).await? + (slice as i64) < end {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        log.append(chunk).await?;
        end += chunk.len() as i64;
    }
    produced.store(true, Ordering::SeqCst);
    Ok(())
}

/// One incarnation of a consumer: a task working on a pool of one connection, whose session
/// is `pid`; `T` is what the task returns.
pub(crate) struct Consumer<T> {
    pub(crate) task: JoinHandle<T>,
    pub(crate) pid: i32,
    pub(crate) pool: PgPool,
}

/// A pool of one connection for a consumer, and its session's pid.
pub(crate) async fn one_session(db: &TestDatabase) -> Result<(PgPool, i32), KitError> {
    let pool = db.pool(1).await?;
    let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&pool)
        .await
        .map_err(KitError::database("read the consumer's backend pid"))?;
    Ok((pool, pid))
}

impl Consumer<Vec<Result<Polled, sqlx::Error>>> {
    async fn start<H: Handler>(
        db: &TestDatabase,
        subject: &Subject<H>,
        batch: i64,
        produced: Arc<AtomicBool>,
    ) -> Result<Self, KitError> {
        let (pool, pid) = one_session(db).await?;
        let (handler, polling) = (subject.handler.clone(), pool.clone());
        let task = tokio::spawn(async move {
            let mut polls = Vec::new();
            loop {
                // Read before the poll: a poll that takes nothing after everything was
                // appended has caught up.
                let all_appended = produced.load(Ordering::SeqCst);
                let result = handler.call(polling.clone(), Poll::new(GROUP, batch)).await;
                let stop = match &result {
                    Ok(Polled { handled: 0 }) => all_appended,
                    Ok(_) => false,
                    Err(_) => true,
                };
                polls.push(result);
                if stop {
                    return polls;
                }
            }
        });
        Ok(Consumer { task, pid, pool })
    }
}

// ANCHOR: kill
/// Kills a consumer as its process would die, in one of two orders. `server_first`: the server
/// ends its session (`pg_terminate_backend`) while the consumer runs, as when its connection is
/// lost, and then the process dies. Otherwise the process dies first, wherever its task is
/// (`abort`), and then the server ends the session it left behind, as it does once the socket
/// is closed. Either way, everything the consumer's open transaction held is rolled back and
/// released before this returns, and nothing it would have done next happens.
pub(crate) async fn kill<T>(
    db: &TestDatabase,
    consumer: Consumer<T>,
    server_first: bool,
) -> Result<(), KitError> {
    let observer = db.session().await?;
    let Consumer { task, pid, pool } = consumer;
    if server_first {
        terminate(&observer, pid).await?;
    }
    task.abort();
    // What the killed consumer's calls returned dies with it: nobody is left to hear it.
    let _ = task.await;
    if !server_first {
        terminate(&observer, pid).await?;
    }
    // A connection its pool opened in place of the terminated one dies with the process too.
    pool.close().await;
    Ok(())
}
// ANCHOR_END: kill

/// Ends the session `pid` and waits until it is gone.
async fn terminate(observer: &tokio_postgres::Client, pid: i32) -> Result<(), KitError> {
    observer
        .execute("SELECT pg_terminate_backend($1)", &[&pid])
        .await
        .map_err(KitError::observer("terminating the consumer's session"))?;
    while observer
        .query_opt("SELECT 1 FROM pg_stat_activity WHERE pid = $1", &[&pid])
        .await
        .map_err(KitError::observer(
            "waiting for the consumer's session to end",
        ))?
        .is_some()
    {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    Ok(())
}

/// The soak as the lesson's test runs it: the full size (or the quick one under the checks), its
/// report printed (`cargo test -- --nocapture` shows it).
pub async fn soak_test<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let report = soak(subject, SOAK).await?;
    println!("{report}");
    Ok(())
}
