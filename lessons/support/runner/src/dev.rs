//! `cargo workbook db …` and `cargo workbook deliver …`: a database to poke at by hand, and
//! events typed or piped into a lesson's handler. The work is done by binaries that link a
//! database client (the kit's `workbook-db`, each lesson crate's `deliver`); the runner only
//! starts them, so it never links one itself, and a student's exercise that does not compile
//! breaks `deliver --mine` alone.

use std::path::Path;
use std::process::{Command, ExitCode};

use crate::catalog;
use crate::tests_run::{cargo, cargo_missing};

/// The development database's data, under the workbook's `target/` (so `cargo clean` removes
/// it, as it removes every other thing the workbook built).
fn with_db_dir(mut command: Command, root: &Path) -> Command {
    if std::env::var_os("WORKBOOK_DB_DIR").is_none() {
        command.env("WORKBOOK_DB_DIR", root.join("target/workbook-db"));
    }
    command
}

fn run(mut command: Command) -> Result<ExitCode, String> {
    let status = command.status().map_err(cargo_missing)?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}

pub fn db(root: &Path, action: &str, database: Option<&str>) -> Result<ExitCode, String> {
    let mut command = with_db_dir(cargo(root), root);
    command.args([
        "run",
        "--quiet",
        "-p",
        "workbook-kit",
        "--bin",
        "workbook-db",
        "--",
    ]);
    command.arg(action).args(database);
    run(command)
}

/// `deliver NN [FILE|-] [--mine] [--fresh]`: the solution's handler writes to `workbook_NN`,
/// the student's own (`--mine`) to `workbook_NN_mine`, so that what one did never muddles what
/// the other does.
pub fn deliver(
    root: &Path,
    name: &str,
    input: Option<&str>,
    mine: bool,
    fresh: bool,
) -> Result<ExitCode, String> {
    let lesson = catalog::find(name)?;
    if let Some(path) = input.filter(|path| *path != "-")
        && !Path::new(path).is_file()
    {
        return Err(format!(
            "{path} is not a file. Give a file of events, one JSON object a line, or - (or \
             nothing) to type or pipe them in."
        ));
    }
    let (package, database) = if mine {
        (
            lesson.exercise_package(),
            format!("workbook_{}_mine", lesson.number),
        )
    } else {
        (
            lesson.solution_package(),
            format!("workbook_{}", lesson.number),
        )
    };
    let mut command = with_db_dir(cargo(root), root);
    command.args(["run", "--quiet", "-p", &package, "--bin", "deliver", "--"]);
    command.args(["--database", &database]);
    if fresh {
        command.arg("--fresh");
    }
    if let Some(path) = input {
        // cargo runs the binary from the workbook's root: a relative path is the student's.
        let path = std::path::absolute(path).map_err(|e| format!("{path}: {e}"))?;
        command.arg(path);
    }
    if input.is_none_or(|path| path == "-") && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        eprintln!(
            "Type events, one JSON object a line, each delivered as you press Enter; Ctrl-D \
             ends. (Lesson {} with {}'s handler, into the database {database}.)",
            lesson.number,
            if mine {
                "your exercise"
            } else {
                "the solution"
            }
        );
    }
    run(command)
}
