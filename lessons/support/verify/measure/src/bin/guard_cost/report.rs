//! What the benchmark writes (a CSV of every cell, the chapter's Markdown tables, its chart),
//! and its check: a guard that promises each payment settled once, and did not, fails the run.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use crate::strategy::Strategy;
use crate::stream::Stream;
use crate::{Cell, SHOWN_WORKERS, ServerInfo};

pub fn finish(out: &Path, cells: &[Cell]) -> ExitCode {
    let written = std::fs::create_dir_all(out)
        .and_then(|()| std::fs::write(out.join("results.csv"), csv(cells)))
        .and_then(|()| std::fs::write(out.join("tables.md"), tables(cells)))
        .map_err(|e| e.to_string())
        .and_then(|()| crate::chart::draw(&out.join("chart.svg"), cells));
    reported(written, out, "results.csv, tables.md and chart.svg", cells)
}

/// A run on a durable server: its CSV, and `durable.md`, its ratios beside those of the
/// `results.csv` in `out` (the kit's usual server's, from the full run), when there is one.
pub fn finish_durable(out: &Path, server: &ServerInfo, cells: &[Cell]) -> ExitCode {
    let usual = std::fs::read_to_string(out.join("results.csv")).unwrap_or_default();
    let written = std::fs::create_dir_all(out)
        .and_then(|()| std::fs::write(out.join("results-durable.csv"), csv(cells)))
        .and_then(|()| std::fs::write(out.join("durable.md"), durable(server, cells, &usual)));
    let written = written.map_err(|e| e.to_string());
    reported(written, out, "results-durable.csv and durable.md", cells)
}

/// Says what a run wrote into `out` (`files`), or why it could not, and then checks `cells`.
fn reported(written: Result<(), String>, out: &Path, files: &str, cells: &[Cell]) -> ExitCode {
    if let Err(error) = written {
        eprintln!(
            "guard_cost: could not write into {}: {error}",
            out.display()
        );
        return ExitCode::FAILURE;
    }
    eprintln!("wrote {files} into {}", out.display());
    check(cells)
}

fn check(cells: &[Cell]) -> ExitCode {
    let broken: Vec<String> = cells.iter().filter_map(broken_promise).collect();
    if broken.is_empty() {
        eprintln!("every guard kept its promise in every cell");
        return ExitCode::SUCCESS;
    }
    for line in &broken {
        eprintln!("{line}");
    }
    ExitCode::FAILURE
}

/// Why a cell fails the run: a delivery that failed again when it was delivered again (the
/// streams hold nothing a guard may refuse), or, where the strategy promises it, a payment with
/// no ledger row or more than one.
fn broken_promise(cell: &Cell) -> Option<String> {
    let m = &cell.measured;
    let exact = cell.strategy.must_be_exact(cell.stream);
    let wrong = m.errors > 0 || (exact && (m.extra != 0 || m.missing != 0));
    wrong.then(|| {
        format!(
            "{} on the {} stream with {} workers: {} deliveries failed twice, {} ledger rows \
             beyond one per payment, {} payments with none",
            cell.strategy.name(),
            cell.stream.name(),
            cell.workers,
            m.errors,
            m.extra,
            m.missing
        )
    })
}

const CSV_HEADER: &str = "strategy,stream,workers,deliveries,seconds,per_second,pgbench_tps,\
ratio_to_pgbench,p50_ms,p99_ms,applied,skipped,retries,redelivered,errors,extra_applied,missing,\
dead_tuples_per_delivery,wal_bytes_per_delivery,xids_per_delivery,promises_exact,\
wal_syncs_per_delivery";

fn csv(cells: &[Cell]) -> String {
    let mut text = format!("{CSV_HEADER}\n");
    for cell in cells {
        let m = &cell.measured;
        let per = |n: i64| n as f64 / m.deliveries as f64;
        let _ = writeln!(
            text,
            "{},{},{},{},{:.3},{:.1},{:.1},{:.3},{:.3},{:.3},{},{},{},{},{},{},{},{:.3},{:.1},{:.3},{},{:.3}",
            cell.strategy.name(),
            cell.stream.name(),
            cell.workers,
            m.deliveries,
            m.seconds,
            m.per_second(),
            cell.ceiling,
            m.per_second() / cell.ceiling,
            m.p50.as_secs_f64() * 1e3,
            m.p99.as_secs_f64() * 1e3,
            m.applied,
            m.skipped,
            m.retries,
            m.redelivered,
            m.errors,
            m.extra,
            m.missing,
            per(m.dead_tuples),
            per(m.wal_bytes),
            per(m.xids),
            cell.strategy.must_be_exact(cell.stream),
            per(m.wal_syncs),
        );
    }
    text
}

/// The durable run's ratios beside the usual server's (read from its CSV, `usual`), at the
/// workers shown; and what a delivery of the half duplicates stream took on the durable server.
fn durable(server: &ServerInfo, cells: &[Cell], usual: &str) -> String {
    let workers = shown_workers(cells);
    let mut lines = usual.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name);
    let rows: Vec<Vec<&str>> = lines.map(|line| line.split(',').collect()).collect();
    let usual_field = |strategy: Strategy, stream: Stream, name: &str| {
        let (at, field) = (column("strategy")?, column(name)?);
        let (on, by) = (column("stream")?, column("workers")?);
        let row = rows.iter().find(|row| {
            row.get(at) == Some(&strategy.name())
                && row.get(on) == Some(&stream.name())
                && row.get(by) == Some(&workers.to_string().as_str())
        })?;
        row.get(field).and_then(|value| value.parse::<f64>().ok())
    };
    let find = |strategy: Strategy, stream: Stream| {
        (cells.iter()).find(|c| (c.strategy, c.stream, c.workers) == (strategy, stream, workers))
    };
    let ceiling = cells
        .iter()
        .find(|c| c.workers == workers)
        .map_or(0.0, |c| c.ceiling);
    let usual_ceiling = usual_field(Strategy::Unguarded, Stream::Distinct, "pgbench_tps");
    let mut text = String::new();
    let _ = writeln!(
        text,
        "Throughput as a share of pgbench's, {workers} workers: \"no fsync\" on the kit's test \
         server (`results.csv`, pgbench {} transactions/s), \"durable\" on PostgreSQL {} with \
         fsync={}, synchronous_commit={}, full_page_writes={} (`results-durable.csv`, pgbench \
         {ceiling:.0} transactions/s):\n",
        usual_ceiling.map_or("?".to_string(), |tps| format!("{tps:.0}")),
        server.version,
        server.fsync,
        server.synchronous_commit,
        server.full_page_writes,
    );
    let mut head = String::from("| strategy |");
    for stream in Stream::ALL {
        let _ = write!(head, " {0}: no fsync | {0}: durable |", stream.name());
    }
    let _ = writeln!(text, "{head}");
    let _ = writeln!(text, "|---|---|---|---|---|---|---|");
    for strategy in Strategy::ALL {
        let mut row = format!("| {} |", strategy.name());
        for stream in Stream::ALL {
            let usual = usual_field(strategy, stream, "ratio_to_pgbench");
            let durable = find(strategy, stream).map(|c| c.measured.per_second() / c.ceiling);
            for ratio in [usual, durable] {
                match ratio {
                    Some(ratio) => {
                        let _ = write!(row, " {ratio:.2}× |");
                    }
                    None => row.push_str(" – |"),
                }
            }
        }
        let _ = writeln!(text, "{row}");
    }
    let _ = writeln!(
        text,
        "\nWhat one delivery of the half duplicates stream took on the durable server, \
         {workers} workers:\n"
    );
    let _ = writeln!(text, "| strategy | xids | WAL syncs | p50 ms | p99 ms |");
    let _ = writeln!(text, "|---|---|---|---|---|");
    for strategy in Strategy::ALL {
        if let Some(cell) = find(strategy, Stream::HalfDuplicates) {
            let m = &cell.measured;
            let per = |n: i64| n as f64 / m.deliveries as f64;
            let _ = writeln!(
                text,
                "| {} | {:.2} | {:.2} | {:.2} | {:.2} |",
                strategy.name(),
                per(m.xids),
                per(m.wal_syncs),
                m.p50.as_secs_f64() * 1e3,
                m.p99.as_secs_f64() * 1e3,
            );
        }
    }
    text
}

/// The chapter's two tables: throughput at the workers it shows (or the most measured, below
/// that), and what one delivery costs with one worker, where nothing queues for a core.
fn tables(cells: &[Cell]) -> String {
    let workers = shown_workers(cells);
    let find = |strategy: Strategy, stream: Stream, workers: usize| {
        (cells.iter()).find(|c| (c.strategy, c.stream, c.workers) == (strategy, stream, workers))
    };
    let mut text = String::new();
    let ceiling = cells
        .iter()
        .find(|c| c.workers == workers)
        .map_or(0.0, |c| c.ceiling);
    let _ = writeln!(
        text,
        "Throughput as a share of pgbench's {ceiling:.0} transactions/s ({workers} workers), and \
         the ledger rows beyond one per payment:\n"
    );
    let _ = writeln!(
        text,
        "| strategy | distinct | half duplicates | contradicting |"
    );
    let _ = writeln!(text, "|---|---|---|---|");
    for strategy in Strategy::ALL {
        let mut row = format!("| {} |", strategy.name());
        for stream in Stream::ALL {
            if let Some(cell) = find(strategy, stream, workers) {
                let m = &cell.measured;
                let _ = write!(
                    row,
                    " {:.2}× · {} extra |",
                    m.per_second() / cell.ceiling,
                    m.extra
                );
            }
        }
        let _ = writeln!(text, "{row}");
    }
    let _ = writeln!(
        text,
        "\nWhat one delivery cost on the half duplicates stream, with one worker:\n"
    );
    let _ = writeln!(
        text,
        "| strategy | p50 ms | p99 ms | dead tuples | WAL bytes | xids |"
    );
    let _ = writeln!(text, "|---|---|---|---|---|---|");
    for strategy in Strategy::ALL {
        if let Some(cell) = find(strategy, Stream::HalfDuplicates, 1) {
            let m = &cell.measured;
            let per = |n: i64| n as f64 / m.deliveries as f64;
            let _ = writeln!(
                text,
                "| {} | {:.2} | {:.2} | {:.2} | {:.0} | {:.2} |",
                strategy.name(),
                m.p50.as_secs_f64() * 1e3,
                m.p99.as_secs_f64() * 1e3,
                per(m.dead_tuples),
                per(m.wal_bytes),
                per(m.xids),
            );
        }
    }
    text
}

pub fn shown_workers(cells: &[Cell]) -> usize {
    (cells.iter().map(|c| c.workers))
        .filter(|&w| w <= SHOWN_WORKERS)
        .max()
        .unwrap_or(SHOWN_WORKERS)
}
