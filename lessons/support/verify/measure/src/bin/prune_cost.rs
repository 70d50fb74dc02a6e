//! `cargo run -p workbook-measure --bin prune_cost [-- --rows N]`: what lesson 09's prune costs,
//! measured, not asserted (timings belong in notes, never in tests).
//!
//! For the solution's prune (batches of 1,000, each its own transaction) and, for comparison,
//! two wrong fixes (one statement; batches that each lock the table first): a fresh database with a backlog of N rows received ten days
//! ago; eight tasks deliver new credits through the given handler without pause; the prune runs
//! once. It prints the prune's rows per second, and what the deliveries saw meanwhile: their
//! latency, and the longest time any session was seen waiting on a lock (an observer samples
//! `pg_locks` every millisecond).

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chrono::{TimeDelta, Utc};
use kit::TestDatabase;
use retention::{Credit, Delivered, Prune, handle};

const DELIVERERS: usize = 8;

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() -> ExitCode {
    let rows = match parse(std::env::args().skip(1)) {
        Ok(rows) => rows,
        Err(message) => {
            eprintln!("{message}\nusage: prune_cost [--rows N]   (default 200000)");
            return ExitCode::from(2);
        }
    };
    println!("backlog: {rows} rows received ten days ago; {DELIVERERS} tasks delivering meanwhile");
    for (name, how) in [
        ("solution (batches of 1,000)", How::Solution),
        ("one statement", How::OneStatement),
        ("batches, table locked first", How::LockTheTable),
    ] {
        match measure(rows, how).await {
            Ok(report) => println!("{name:<28} {report}"),
            Err(error) => {
                eprintln!("{name}: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<i64, String> {
    match (args.next().as_deref(), args.next()) {
        (None, _) => Ok(200_000),
        (Some("--rows"), Some(n)) => n.parse().map_err(|_| format!("not a number: {n}")),
        (Some(other), _) => Err(format!("unknown argument: {other}")),
    }
}

/// Which prune to measure.
#[derive(Clone, Copy)]
enum How {
    Solution,
    OneStatement,
    LockTheTable,
}

// The two wrong fixes measured for comparison, `one_statement` and `lock_the_table`: lesson 09's
// catalogue entries one-statement.patch and lock-the-table-first.patch, as verify patches them.
include!(concat!(env!("OUT_DIR"), "/wrong_fixes.rs"));

async fn measure(rows: i64, how: How) -> Result<String, Box<dyn std::error::Error>> {
    let schema = verify::lesson_09::solution().schema;
    let db = TestDatabase::create(&schema).await?;
    let setup = db.session().await?;
    setup
        .batch_execute(&format!(
            "INSERT INTO processed_events (event_id, occurred_on, received_on, received_at)
             SELECT 'evt-old-' || i, d, d, t
               FROM generate_series(1, {rows}) AS i,
                    LATERAL (SELECT now() - interval '10 days' + i * interval '1 millisecond')
                        AS s(t),
                    LATERAL (SELECT (t AT TIME ZONE 'UTC')::date) AS e(d);
             INSERT INTO accounts (id) SELECT 'acc-' || i FROM generate_series(3, {DELIVERERS} + 2) i;
             ANALYZE processed_events;"
        ))
        .await?;
    let pool = db.pool(DELIVERERS as u32 + 1).await?;

    let stop = Arc::new(AtomicBool::new(false));
    let mut deliverers = Vec::new();
    for task in 0..DELIVERERS {
        let (pool, stop) = (pool.clone(), stop.clone());
        deliverers.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let now = Utc::now();
                let delivered = Delivered {
                    event: Credit {
                        id: format!("evt-new-{task}-{n}"),
                        // One account per task: deliveries that credit the same account wait
                        // on each other's row lock, which is not what this measures.
                        account: format!("acc-{}", task + 3),
                        amount_cents: 1,
                        occurred_at: now,
                    },
                    received_at: now,
                };
                let started = Instant::now();
                handle(&pool, &delivered).await?;
                latencies.push(started.elapsed());
            }
            Ok::<_, sqlx::Error>(latencies)
        }));
    }
    let observer = db.session().await?;
    let watching = stop.clone();
    let sampler = tokio::spawn(async move {
        // pid → when it was first seen waiting, in the current stretch.
        let mut waiting: HashMap<i32, Instant> = HashMap::new();
        let mut longest = Duration::ZERO;
        while !watching.load(Ordering::Relaxed) {
            let rows = observer
                .query("SELECT DISTINCT pid FROM pg_locks WHERE NOT granted", &[])
                .await
                .map_err(|e| e.to_string())?;
            let now = Instant::now();
            let seen: Vec<i32> = rows.iter().map(|row| row.get(0)).collect();
            waiting.retain(|pid, since| {
                let still = seen.contains(pid);
                if !still {
                    longest = longest.max(now - *since);
                }
                still
            });
            for pid in seen {
                waiting.entry(pid).or_insert(now);
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let now = Instant::now();
        for since in waiting.values() {
            longest = longest.max(now - *since);
        }
        Ok::<_, String>(longest)
    });

    let prune = Prune::at(Utc::now() + TimeDelta::seconds(1));
    let started = Instant::now();
    let pruned = match how {
        How::Solution => solution_09::prune(&pool, &prune).await?,
        How::OneStatement => one_statement::prune(&pool, &prune).await?,
        How::LockTheTable => lock_the_table::prune(&pool, &prune).await?,
    };
    let took = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let mut latencies = Vec::new();
    for deliverer in deliverers {
        latencies.extend(deliverer.await??);
    }
    let longest_lock_wait = sampler.await??;
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    Ok(format!(
        "{} rows in {:.2} s = {:.0} rows/s; {} deliveries meanwhile, latency p50 {:.1} ms, p99 \
         {:.1} ms, max {:.1} ms; longest lock wait seen {:.1} ms",
        pruned.rows,
        took.as_secs_f64(),
        pruned.rows as f64 / took.as_secs_f64(),
        latencies.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        latencies.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        longest_lock_wait.as_secs_f64() * 1e3,
    ))
}
