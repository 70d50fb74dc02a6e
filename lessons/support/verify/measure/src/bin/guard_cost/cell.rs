//! One cell of the benchmark: one strategy, one stream, some number of workers, on a fresh
//! database; what it did, what it cost, and whether it applied each payment once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use kit::{Schema, TestDatabase};
use sqlx::PgPool;
use tokio_postgres::Client;

use crate::strategy::{Handled, Strategy};
use crate::stream::{Event, Stream};

/// What one cell measured.
#[derive(Clone, Debug)]
pub struct Measured {
    pub deliveries: usize,
    pub seconds: f64,
    pub p50: Duration,
    pub p99: Duration,
    pub applied: usize,
    pub skipped: usize,
    /// Attempts beyond the first (SERIALIZABLE's retries).
    pub retries: u64,
    /// Deliveries that returned an error (SERIALIZABLE + retry's, when it gave up), each
    /// delivered again after the stream, as an at-least-once source would.
    pub redelivered: usize,
    /// Deliveries that still failed when delivered again.
    pub errors: usize,
    /// Ledger rows beyond one per payment: copies or contradicting outcomes applied.
    pub extra: i64,
    /// Payments the stream settles that have no ledger row.
    pub missing: i64,
    /// Row versions written that were dead by the end: every update's old version, every
    /// insert that rolled back.
    pub dead_tuples: i64,
    pub wal_bytes: i64,
    pub xids: i64,
    /// Times the server synced its WAL to disk (`pg_stat_wal.wal_sync`): none without fsync; on
    /// a durable server, at most one per commit that must wait for the disk (concurrent commits
    /// can share one).
    pub wal_syncs: i64,
}

impl Measured {
    pub fn per_second(&self) -> f64 {
        self.deliveries as f64 / self.seconds
    }
}

pub async fn measure(
    schema: &Schema,
    strategy: Strategy,
    stream: Stream,
    workers: usize,
    deliveries: usize,
) -> Result<Measured, Box<dyn std::error::Error>> {
    let db = TestDatabase::create(schema).await?;
    let (events, payments) = stream.deliveries(deliveries, workers);
    // Seeded on a session of its own, which ends here: a backend reports what it wrote to the
    // statistics system only when idle for a while, or as it exits, and the dead rows are
    // counted from those reports.
    seed(&db.session().await?, payments, workers).await?;
    let observer = db.session().await?;
    let pool = db.pool(workers as u32).await?;
    let before = Counters::read(&observer).await?;

    let started = Instant::now();
    let mut results = deliver(&pool, strategy, events, workers).await;
    let failed: Vec<Event> = (results.iter())
        .filter(|(_, _, result)| result.is_err())
        .map(|(event, _, _)| event.clone())
        .collect();
    let redelivered = failed.len();
    // What failed is delivered again, once the stream is done, one at a time.
    for event in failed {
        let again = Instant::now();
        let result = strategy.handle(&pool, &event).await;
        results.push((event, again.elapsed(), result));
    }
    let seconds = started.elapsed().as_secs_f64();
    pool.close().await;
    let after = Counters::read(&observer).await?;

    let mut latencies = Vec::new();
    let (mut applied, mut skipped, mut retries, mut errors) = (0, 0, 0, 0);
    for (_, latency, result) in results {
        latencies.push(latency);
        match result {
            Ok((handled, attempts)) => {
                retries += u64::from(attempts) - 1;
                match handled {
                    Handled::Applied => applied += 1,
                    Handled::Skipped => skipped += 1,
                }
            }
            Err(_) => errors += 1,
        }
    }
    let errors = errors - redelivered;
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    let row = observer
        .query_one(
            "SELECT count(*) - count(DISTINCT payment_id), $1 - count(DISTINCT payment_id)
               FROM ledger",
            &[&(payments as i64)],
        )
        .await?;
    let (dead_tuples, wal_syncs) = once_sessions_end(&db, &observer).await?;
    Ok(Measured {
        deliveries,
        seconds,
        p50: at(0.5),
        p99: at(0.99),
        applied,
        skipped,
        retries,
        redelivered,
        errors,
        extra: row.get(0),
        missing: row.get(1),
        dead_tuples,
        wal_bytes: after.wal_bytes - before.wal_bytes,
        xids: after.next_xid - before.next_xid,
        wal_syncs: wal_syncs - before.wal_syncs,
    })
}

/// Every event handed out to `workers` tasks: each takes the next one as it finishes, so that
/// a copy delivered right after its original is handled at the same time by another worker.
/// Lesson 07's consumer instead reads its own partition, in order.
async fn deliver(
    pool: &PgPool,
    strategy: Strategy,
    events: Vec<Event>,
    workers: usize,
) -> Vec<(Event, Duration, Result<(Handled, u32), sqlx::Error>)> {
    let events = Arc::new(events);
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for worker in 0..workers {
        let (pool, events, next) = (pool.clone(), events.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut results = Vec::new();
            let mine = (events.iter()).filter(|event| event.partition as usize == worker);
            let shared = std::iter::from_fn(|| events.get(next.fetch_add(1, Ordering::Relaxed)));
            let queue: Box<dyn Iterator<Item = &Event> + Send> =
                if strategy == Strategy::OffsetInTransaction {
                    Box::new(mine)
                } else {
                    Box::new(shared)
                };
            for event in queue {
                let started = Instant::now();
                let result = strategy.handle(&pool, event).await;
                results.push((event.clone(), started.elapsed(), result));
            }
            results
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.expect("a worker panicked"));
    }
    all
}

/// `payments` pending payments and `partitions` offsets at 0, vacuumed, so that every cell
/// starts from the same tables and plans; then a checkpoint, so that every cell starts from the same WAL
/// state (where full-page writes are on, a page's first change after a checkpoint writes the
/// whole page). A server that refuses the checkpoint (a role without `pg_checkpoint`) is
/// measured without it.
pub async fn seed(
    observer: &Client,
    payments: usize,
    partitions: usize,
) -> Result<(), tokio_postgres::Error> {
    observer
        .batch_execute(&format!(
            "INSERT INTO payments (id) SELECT 'pay-' || p FROM generate_series(0, {payments} - 1) p;
             INSERT INTO consumer_offsets SELECT w, 0 FROM generate_series(0, {partitions} - 1) w"
        ))
        .await?;
    // The seeded tables only (and apart: VACUUM cannot run in the implicit transaction of a
    // multi-statement query). An empty table once vacuumed is planned as empty for good, since
    // autovacuum never analyzes it again: the statements that look up the ledger by event would
    // get a cached plan that scans the whole table. Never vacuumed, it is planned as ten pages,
    // and looked up by its index.
    observer
        .batch_execute("VACUUM (ANALYZE) payments, consumer_offsets")
        .await?;
    let _ = observer.batch_execute("CHECKPOINT").await;
    Ok(())
}

/// The server's cluster-wide counters: the end of the WAL written so far, the next transaction
/// id (read from a snapshot, which assigns none), and the WAL syncs reported so far.
struct Counters {
    wal_bytes: i64,
    next_xid: i64,
    wal_syncs: i64,
}

impl Counters {
    async fn read(observer: &Client) -> Result<Counters, tokio_postgres::Error> {
        let row = observer
            .query_one(
                "SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint,
                        pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
                        (SELECT wal_sync FROM pg_stat_wal)",
                &[],
            )
            .await?;
        Ok(Counters {
            wal_bytes: row.get(0),
            next_xid: row.get(1),
            wal_syncs: row.get(2),
        })
    }
}

/// Dead row versions the run left in the benchmark's tables: every version written (each insert
/// and each update writes one, and the statistics count them whether or not their transaction
/// committed) less the rows alive at the end. Exact, unlike `n_dead_tup`, which on-access
/// pruning lowers as it goes. And the server's WAL syncs so far. Both read once every worker's
/// session has ended (a backend reports its counts to the statistics system as it exits).
async fn once_sessions_end(
    db: &TestDatabase,
    observer: &Client,
) -> Result<(i64, i64), tokio_postgres::Error> {
    loop {
        let others: i64 = observer
            .query_one(
                "SELECT count(*) FROM pg_stat_activity
                  WHERE datname = $1 AND pid <> pg_backend_pid()",
                &[&db.name()],
            )
            .await?
            .get(0);
        if others == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    observer
        .batch_execute("SELECT pg_stat_clear_snapshot()")
        .await?;
    let row = observer
        .query_one(
            "SELECT (SELECT sum(n_tup_ins + n_tup_upd) FROM pg_stat_user_tables)::bigint
                  - (SELECT count(*) FROM payments) - (SELECT count(*) FROM processed_events)
                  - (SELECT count(*) FROM ledger) - (SELECT count(*) FROM consumer_offsets),
                    (SELECT wal_sync FROM pg_stat_wal)",
            &[],
        )
        .await?;
    Ok((row.get(0), row.get(1)))
}
