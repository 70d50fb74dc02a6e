//! `cargo run --release -p workbook-measure --bin guard_cost [-- --quick] [--out DIR]`: what
//! each guard of the workbook costs, measured against the same server's ceiling, and checked:
//! every guard that promises each payment settled once must keep that promise on every run.
//!
//! For every number of workers (1, 2, 8, 32): `pgbench` runs the unguarded transaction, the
//! ceiling; then every strategy handles each of the three streams on a fresh database, and the
//! cell records throughput (and its ratio to the ceiling), latency, what was applied, and the
//! dead tuples, WAL bytes, transaction ids and WAL syncs the stream cost. Each cell is run
//! `--rounds` times, and the run with the median throughput is kept, all its figures with it;
//! the ceiling is the median of the rounds' pgbench runs (one per round). It writes
//! `results.csv`, `tables.md` (the chapter's tables) and `chart.svg` (its chart) into `--out`
//! (the chapter's are in `book/src/guard-cost/`). `--quick` runs 200 deliveries with 1 and 8
//! workers, once each: CI's check that the benchmark still runs and every guard still holds.
//! `--workers 8` (or `1,8`, …) measures only those numbers of workers.
//!
//! The server is the kit's, whichever it finds (the chapter's figures are from its throwaway
//! cluster of the local binaries, which runs without fsync, in memory). `--durable` asks the kit
//! for a durable one instead (data on disk, `fsync`, `synchronous_commit` and `full_page_writes`
//! on) and writes `results-durable.csv` and `durable.md` (the durable ratios beside those of the
//! `results.csv` already in `--out`), leaving the other files alone.

mod cell;
mod chart;
mod pgbench;
mod report;
mod strategy;
mod stream;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use kit::{Schema, TestDatabase};

use crate::cell::Measured;
use crate::strategy::Strategy;
use crate::stream::Stream;

/// The workers of the cell the chapter's table and chart show.
pub const SHOWN_WORKERS: usize = 8;

struct Plan {
    workers: Vec<usize>,
    deliveries: usize,
    rounds: usize,
    pgbench_seconds: u32,
    out: PathBuf,
    durable: bool,
}

/// The server a run measured: its version and the settings that decide what a commit costs.
pub struct ServerInfo {
    pub version: String,
    pub fsync: String,
    pub synchronous_commit: String,
    pub full_page_writes: String,
}

/// One cell's result: of its rounds, the run with the median throughput.
pub struct Cell {
    pub strategy: Strategy,
    pub stream: Stream,
    pub workers: usize,
    pub ceiling: f64,
    pub measured: Measured,
}

#[tokio::main]
async fn main() -> ExitCode {
    let plan = match parse(std::env::args().skip(1)) {
        Ok(plan) => plan,
        Err(message) => {
            eprintln!(
                "{message}\nusage: guard_cost [--quick] [--durable] [--workers N[,N…]] \
                 [--deliveries N] [--rounds N] [--out DIR]"
            );
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    if plan.durable
        && let Err(error) = kit::durable_local_server()
    {
        eprintln!("guard_cost: {error}");
        return ExitCode::FAILURE;
    }
    let measured = match server_info().await {
        Ok(server) => run(&plan).await.map(|cells| (server, cells)),
        Err(error) => Err(error),
    };
    let code = match measured {
        Ok((server, cells)) if plan.durable => report::finish_durable(&plan.out, &server, &cells),
        Ok((_, cells)) => report::finish(&plan.out, &cells),
        Err(error) => {
            eprintln!("guard_cost: {error}");
            ExitCode::FAILURE
        }
    };
    eprintln!("took {:.0} s", started.elapsed().as_secs_f64());
    code
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Plan, String> {
    let mut plan = Plan {
        workers: vec![1, 2, 8, 32],
        deliveries: 4000,
        rounds: 3,
        pgbench_seconds: 5,
        out: PathBuf::from("."),
        durable: false,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--quick" => {
                (plan.workers, plan.deliveries) = (vec![1, SHOWN_WORKERS], 200);
                (plan.rounds, plan.pgbench_seconds) = (1, 1);
            }
            "--deliveries" => plan.deliveries = number(&value("--deliveries")?)?,
            "--rounds" => plan.rounds = number(&value("--rounds")?)?.max(1),
            "--out" => plan.out = PathBuf::from(value("--out")?),
            "--durable" => plan.durable = true,
            "--workers" => {
                plan.workers = (value("--workers")?.split(','))
                    .map(|n| {
                        number(n).and_then(|n| {
                            (n > 0)
                                .then_some(n)
                                .ok_or("a number of workers must be above 0".into())
                        })
                    })
                    .collect::<Result<_, String>>()?;
            }
            other => return Err(format!("unknown argument: {other}")),
        }
    }
    Ok(plan)
}

fn number(text: &str) -> Result<usize, String> {
    text.parse().map_err(|_| format!("not a number: {text}"))
}

fn schema() -> Schema {
    Schema::from_dirs([concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../../migrations/guard_cost"
    )])
}

/// The server's version and durability settings, as it reports them, also printed.
async fn server_info() -> Result<ServerInfo, Box<dyn std::error::Error>> {
    let db = TestDatabase::create(&schema()).await?;
    let row = (db.session().await?)
        .query_one(
            "SELECT current_setting('server_version'), current_setting('fsync'),
                    current_setting('synchronous_commit'), current_setting('full_page_writes')",
            &[],
        )
        .await?;
    let server = ServerInfo {
        version: row.get(0),
        fsync: row.get(1),
        synchronous_commit: row.get(2),
        full_page_writes: row.get(3),
    };
    eprintln!(
        "PostgreSQL {}: fsync={}, synchronous_commit={}, full_page_writes={}",
        server.version, server.fsync, server.synchronous_commit, server.full_page_writes
    );
    Ok(server)
}

async fn run(plan: &Plan) -> Result<Vec<Cell>, Box<dyn std::error::Error>> {
    let schema = schema();
    let mut cells = Vec::new();
    for &workers in &plan.workers {
        let mut ceilings = Vec::new();
        let mut rounds: Vec<Vec<Measured>> = Vec::new();
        for _ in 0..plan.rounds {
            ceilings.push(
                pgbench::ceiling(&schema, workers, plan.pgbench_seconds, plan.deliveries).await?,
            );
            let mut i = 0;
            for stream in Stream::ALL {
                for strategy in Strategy::ALL {
                    let measured =
                        cell::measure(&schema, strategy, stream, workers, plan.deliveries).await?;
                    match rounds.get_mut(i) {
                        Some(runs) => runs.push(measured),
                        None => rounds.push(vec![measured]),
                    }
                    i += 1;
                }
            }
        }
        ceilings.sort_by(f64::total_cmp);
        let ceiling = ceilings[ceilings.len() / 2];
        eprintln!("{workers:>2} workers: pgbench {ceiling:.0} transactions/s");
        let keys = Stream::ALL
            .into_iter()
            .flat_map(|stream| Strategy::ALL.map(|strategy| (stream, strategy)));
        for ((stream, strategy), mut runs) in keys.zip(rounds) {
            runs.sort_by(|a, b| a.per_second().total_cmp(&b.per_second()));
            let measured = runs.swap_remove(runs.len() / 2);
            eprintln!(
                "   {:<16} {:<26} {:>7.0}/s  {:.2}× pgbench",
                stream.name(),
                strategy.name(),
                measured.per_second(),
                measured.per_second() / ceiling
            );
            cells.push(Cell {
                strategy,
                stream,
                workers,
                ceiling,
                measured,
            });
        }
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn args(text: &str) -> impl Iterator<Item = String> {
        text.split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn the_durable_run_measures_the_workers_it_is_given() {
        let plan = parse(args("--durable --workers 8 --rounds 1")).unwrap();
        assert!(plan.durable);
        assert_eq!((plan.workers, plan.rounds), (vec![8], 1));
        let plan = parse(args("--quick --workers 1,2")).unwrap();
        assert_eq!((plan.workers, plan.deliveries), (vec![1, 2], 200));
    }

    #[test]
    fn a_run_is_on_the_kits_usual_server_unless_asked() {
        let plan = parse(args("")).unwrap();
        assert!(!plan.durable);
        assert_eq!(plan.workers, vec![1, 2, 8, 32]);
    }

    #[test]
    fn workers_must_be_numbers_above_zero() {
        for bad in ["--workers 0", "--workers 8,x", "--workers"] {
            assert!(parse(args(bad)).is_err(), "{bad}");
        }
    }
}
