//! `workbook-play SPEC OUT_DIR [--permutation N] [--schema DIR] [--level LEVEL]`: what `cargo
//! workbook play` runs. Plays a spec of sessions as PostgreSQL's isolation tester plays it
//! ([`kit::tester`]), on a throwaway database (with the migrations in DIR applied, if given),
//! printing what the tester prints; then writes each permutation's statements into `OUT_DIR`
//! (`N.json` and `N.txt`, N counted from 1), for the runner's stepper pages. `--level` plays a
//! spec written with `LEVEL` for its isolation level (`BEGIN ISOLATION LEVEL LEVEL }`, as
//! lesson 13's anomaly specs are) at that level.
//!
//! Exit codes: 0 played; 1 the play failed (a step ran past twice `PGISOLATIONTIMEOUT`, steps
//! that block each other, a setup that failed); 2 the spec or the arguments were refused.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use kit::spec::Spec;
use kit::{Schema, TestDatabase};

/// The isolation tester's own default for `PGISOLATIONTIMEOUT`, in seconds.
const DEFAULT_STEP_WAIT: u64 = 300;

const USAGE: &str =
    "usage: workbook-play SPEC OUT_DIR [--permutation N] [--schema DIR] [--level LEVEL]";

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(spec_path), Some(out_dir)) = (args.next(), args.next()) else {
        return refused(USAGE);
    };
    let (mut only, mut schema, mut level) = (None, Vec::new(), None);
    while let Some(flag) = args.next() {
        let Some(value) = args.next() else {
            return refused(USAGE);
        };
        match flag.as_str() {
            "--permutation" => match value.parse::<usize>() {
                Ok(n) => only = Some(n),
                Err(_) => return refused(&format!("the permutation is a number, not {value:?}")),
            },
            "--schema" => schema.push(PathBuf::from(value)),
            "--level" => level = Some(value),
            _ => return refused(USAGE),
        }
    }
    let mut text = match std::fs::read_to_string(&spec_path) {
        Ok(text) => text,
        Err(e) => return refused(&format!("could not read {spec_path}: {e}")),
    };
    if let Some(level) = &level {
        text = text.replace("LEVEL }", &format!("{level} }}"));
    }
    let spec = match Spec::parse(&text) {
        Ok(spec) => spec,
        Err(e) => return refused(&format!("{spec_path}, {e}")),
    };
    if !spec.is_sessions_only() {
        return refused(&format!(
            "{spec_path} delivers to a lesson's handler (or ends a delivery): `play` plays specs \
             of SQL sessions only, as PostgreSQL's isolation tester does. A lesson's race is \
             played with `cargo workbook break NN {spec_path}`."
        ));
    }
    let step_wait = std::env::var("PGISOLATIONTIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_STEP_WAIT);
    let db = match TestDatabase::create(&Schema::from_dirs(schema)).await {
        Ok(db) => db,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut print = |text: &str| {
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
    };
    let wait = Duration::from_secs(step_wait);
    let played = match kit::tester::play(&spec, &db, wait, only, &mut print).await {
        Ok(played) => played,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let out_dir = PathBuf::from(out_dir);
    for (n, permutation) in played.iter().enumerate() {
        let n = only.unwrap_or(n + 1);
        let written = std::fs::create_dir_all(&out_dir).and_then(|()| {
            let json = permutation.statements.to_json();
            std::fs::write(out_dir.join(format!("{n}.json")), json)?;
            let text = format!("{}\n{}", permutation.order, permutation.statements);
            std::fs::write(out_dir.join(format!("{n}.txt")), text)
        });
        if let Err(e) = written {
            eprintln!(
                "could not write the statements to {}: {e}",
                out_dir.display()
            );
        }
    }
    ExitCode::SUCCESS
}

fn refused(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}
