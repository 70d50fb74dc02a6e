//! `cargo run --release -p workbook-measure --bin guard_cost [-- --quick] [--out DIR]`: what
//! each guard of the workbook costs, measured against the same server's ceiling, and checked:
//! every guard that promises each payment settled once must keep that promise on every run.
//!
//! For every number of workers (1, 2, 8, 32): `pgbench` runs the unguarded transaction, the
//! ceiling; then every strategy handles each of the three streams on a fresh database, and the
//! cell records throughput (and its ratio to the ceiling), latency, what was applied, and the
//! dead tuples, WAL bytes and transaction ids the stream cost. Each cell is the median (by
//! throughput) of `--rounds` runs. It writes `results.csv`, `tables.md` (the chapter's tables)
//! and `chart.svg` (its chart) into `--out` (the chapter's are in `book/src/guard-cost/`). `--quick` runs 200 deliveries with 1
//! and 8 workers, once each: CI's check that the benchmark still runs and every guard still holds.

mod cell;
mod chart;
mod pgbench;
mod report;
mod strategy;
mod stream;

use std::path::PathBuf;
use std::process::ExitCode;

use kit::Schema;

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
}

/// One cell's result: the median of its rounds.
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
                "{message}\nusage: guard_cost [--quick] [--deliveries N] [--rounds N] [--out DIR]"
            );
            return ExitCode::from(2);
        }
    };
    match run(&plan).await {
        Ok(cells) => report::finish(&plan.out, &cells),
        Err(error) => {
            eprintln!("guard_cost: {error}");
            ExitCode::FAILURE
        }
    }
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Plan, String> {
    let mut plan = Plan {
        workers: vec![1, 2, 8, 32],
        deliveries: 4000,
        rounds: 3,
        pgbench_seconds: 5,
        out: PathBuf::from("."),
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
            other => return Err(format!("unknown argument: {other}")),
        }
    }
    Ok(plan)
}

fn number(text: &str) -> Result<usize, String> {
    text.parse().map_err(|_| format!("not a number: {text}"))
}

async fn run(plan: &Plan) -> Result<Vec<Cell>, Box<dyn std::error::Error>> {
    let schema = Schema::from_dirs([concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../../migrations/guard_cost"
    )]);
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
