//! `cargo workbook db …`, `deliver …` and `serve …`: a database to poke at by hand, events typed
//! or piped into a lesson's handler, and a lesson's HTTP API for curl. The work is done by
//! binaries that link a database client (the kit's `workbook-db`, each lesson crate's `deliver`
//! and `serve`); the runner only starts them, so it never links one itself, and a student's
//! exercise that does not compile breaks `deliver --mine` and `serve --mine` alone.

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

pub(crate) fn run(mut command: Command) -> Result<ExitCode, String> {
    let status = command.status().map_err(cargo_missing)?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}

/// `cargo run` of one of the kit's binaries, its arguments to follow.
pub(crate) fn kit_binary(mut command: Command, binary: &str) -> Command {
    command.args([
        "run",
        "--quiet",
        "-p",
        "workbook-kit",
        "--bin",
        binary,
        "--",
    ]);
    command
}

pub fn db(root: &Path, action: &str, database: Option<&str>) -> Result<ExitCode, String> {
    let mut command = kit_binary(with_db_dir(cargo(root), root), "workbook-db");
    command.arg(action).args(database);
    run(command)
}

/// `kafka start|status|stop|url`: the kit's `workbook-kafka`, with the broker's log under the
/// workbook's `target/`, beside the development database's data.
pub fn kafka(root: &Path, action: &str, fresh: bool) -> Result<ExitCode, String> {
    if fresh && action != "start" {
        return Err(format!(
            "--fresh goes with `kafka start`, not `kafka {action}`"
        ));
    }
    let mut command = cargo(root);
    if std::env::var_os("WORKBOOK_KAFKA_DIR").is_none() {
        command.env("WORKBOOK_KAFKA_DIR", root.join("target/workbook-kafka"));
    }
    let mut command = kit_binary(command, "workbook-kafka");
    command.arg(action);
    if fresh {
        command.arg("--fresh");
    }
    run(command)
}

/// `serve NN [--mine] [--fresh] [--port N]`: the lesson's `serve` binary, for the lessons whose
/// handler sits behind an HTTP API (their domain crate has a `serve.rs`); the databases are
/// `deliver`'s, so requests delivered by file and by curl meet in one place.
pub fn serve(
    root: &Path,
    name: &str,
    mine: bool,
    fresh: bool,
    port: Option<u16>,
) -> Result<ExitCode, String> {
    let lesson = catalog::find(name)?;
    if !root
        .join("lessons")
        .join(lesson.domain)
        .join("serve.rs")
        .exists()
    {
        return Err(format!(
            "lesson {} has no HTTP API to serve: its handler takes events, which `cargo \
             workbook deliver {}` hands to it. `serve` is for lessons 11 and 12, whose handlers \
             sit behind POST /payments.",
            lesson.number, lesson.number
        ));
    }
    let (package, database) = side(lesson, mine);
    let building = format!("lesson {}'s API", lesson.number);
    let mut command = lesson_binary(root, &package, "serve", &building)?;
    command.args(["--database", &database]);
    if fresh {
        command.arg("--fresh");
    }
    if let Some(port) = port {
        command.args(["--port", &port.to_string()]);
    }
    let code = run(command)?;
    compile_errors_are_yours(lesson, mine, &code);
    Ok(code)
}

/// `cargo run` of `package`'s by-hand binary `bin`, on the development database, ready for the
/// binary's own arguments, built first with its progress shown (as `building`). The binaries
/// are behind the package's `deliver` feature, so that `cargo test` does not link them. A build
/// that fails is left to the quiet run, which prints cargo's errors as a student expects them.
fn lesson_binary(root: &Path, package: &str, bin: &str, building: &str) -> Result<Command, String> {
    let build = [
        "build",
        "-p",
        package,
        "--features",
        "deliver",
        "--bin",
        bin,
    ];
    build_showing_progress(root, &build, building)?;
    let mut command = with_db_dir(cargo(root), root);
    command.args([
        "run",
        "--quiet",
        "-p",
        package,
        "--features",
        "deliver",
        "--bin",
        bin,
        "--",
    ]);
    Ok(command)
}

/// The package whose handler serves, and the database it writes to: the solution's writes to
/// `workbook_NN`, the student's own (`--mine`) to `workbook_NN_mine`, so that what one did never
/// muddles what the other does.
fn side(lesson: &catalog::Lesson, mine: bool) -> (String, String) {
    if mine {
        (
            lesson.exercise_package(),
            format!("workbook_{}_mine", lesson.number),
        )
    } else {
        (
            lesson.solution_package(),
            format!("workbook_{}", lesson.number),
        )
    }
}

/// 101 is cargo's exit code when the build fails (and a panic's, which the binaries avoid).
fn compile_errors_are_yours(lesson: &catalog::Lesson, mine: bool, code: &ExitCode) {
    if mine && *code == ExitCode::from(101) {
        eprintln!(
            "If cargo printed compiler errors above, they are in your exercise \
             (exercises/{}): fix them, or leave out --mine to use the solution.",
            lesson.folder
        );
    }
}

/// `deliver NN [FILE|-] [--mine] [--fresh]`: the lesson's `deliver` binary, on the database of
/// [`side`].
pub fn deliver(
    root: &Path,
    name: &str,
    input: Option<&str>,
    mine: bool,
    fresh: bool,
) -> Result<ExitCode, String> {
    let lesson = catalog::find(name)?;
    let (package, database) = side(lesson, mine);
    let building = format!("lesson {}'s `deliver`", lesson.number);
    let mut command = lesson_binary(root, &package, "deliver", &building)?;
    command.args(deliver_args(&database, input, fresh)?);
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
    let code = run(command)?;
    compile_errors_are_yours(lesson, mine, &code);
    Ok(code)
}

/// The `deliver` binary's arguments. `-` (or nothing) is standard input, which the binary
/// inherits; a file is checked here, and made absolute (cargo runs the binary from the root).
fn deliver_args(database: &str, input: Option<&str>, fresh: bool) -> Result<Vec<String>, String> {
    let mut args = vec!["--database".to_string(), database.to_string()];
    if fresh {
        args.push("--fresh".into());
    }
    if let Some(path) = input.filter(|path| *path != "-") {
        let file = Path::new(path);
        if file.is_dir() {
            return Err(format!(
                "{path} is a folder. Give a file of events, one JSON object a line, or - (or \
                 nothing) to type or pipe them in."
            ));
        }
        if !file.exists() {
            return Err(format!("there is no file {path}."));
        }
        let file = std::path::absolute(file).map_err(|e| format!("{path}: {e}"))?;
        args.push(file.display().to_string());
    }
    Ok(args)
}

/// `break NN FILE`: verify's `workbook-break`, which links the shipped exercise and the solution
/// of every lesson (the root `cargo test` builds it too). The file is read from where the
/// student stands, so its path is made absolute before cargo runs from the workspace root.
pub fn breaking(root: &Path, name: &str, file: &str) -> Result<ExitCode, String> {
    let lesson = catalog::find(name)?;
    // A lesson `break` plays ships a starting spec, your-turn.spec, in its specs/ folder: its own,
    // or that of the crate it shares with other lessons (its `domain`: lessons 02 to 05 share
    // the order saga's). The others' rule cannot judge a student's spec.
    let specs = format!("lessons/{}/specs", lesson.domain);
    if !root.join(&specs).join("your-turn.spec").is_file() {
        return Err(format!(
            "`break` does not play lesson {}'s races yet: the lessons it plays each ship a spec \
             to start from, your-turn.spec, in lessons/NN-…/specs/ (or lessons/order-saga/specs/ \
             for lessons 02 to 05)",
            lesson.number
        ));
    }
    let path = std::path::absolute(file)
        .ok()
        .filter(|path| path.is_file())
        .ok_or_else(|| {
            format!(
                "no spec file at {file}. Copy one of {specs}/ and edit it: `cargo workbook \
                 break {} my.spec`",
                lesson.number
            )
        })?;
    build_the_breaker(root)?;
    let mut command = cargo(root);
    command
        .args([
            "run",
            "--quiet",
            "-p",
            "workbook-verify",
            "--bin",
            "workbook-break",
            "--",
        ])
        .arg(lesson.number)
        .arg(path);
    run(command)
}

/// Builds `workbook-break`, which links every lesson's shipped exercise and solution; what
/// cargo printed is shown if the build fails.
fn build_the_breaker(root: &Path) -> Result<(), String> {
    let build = ["build", "-p", "workbook-verify", "--bin", "workbook-break"];
    let building = "the shipped exercises and solutions";
    let (built, said) = build_showing_progress(root, &build, building)?;
    match built {
        true => Ok(()),
        false => Err(format!(
            "the workbook did not build, so no spec can be played. Cargo said:\n{}",
            said.join("\n")
        )),
    }
}

/// Runs cargo's `build` (`args`), silent when there is nothing to compile; otherwise it says
/// what it is building (`building`), and then each crate as cargo starts it, so that a first
/// build of a minute or more never looks hung. Whether it built, and all cargo said.
fn build_showing_progress(
    root: &Path,
    args: &[&str],
    building: &str,
) -> Result<(bool, Vec<String>), String> {
    use std::io::BufRead;
    let mut child = cargo(root)
        .args(args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(cargo_missing)?;
    let (mut said, mut compiled) = (Vec::new(), 0);
    let stderr = child.stderr.take().expect("stderr is piped");
    for line in std::io::BufReader::new(stderr)
        .lines()
        .map_while(Result::ok)
    {
        if let Some(crate_) = line.trim_start().strip_prefix("Compiling ") {
            if compiled == 0 {
                eprintln!("building {building} …");
            }
            compiled += 1;
            eprintln!("  {compiled:>3} {crate_}");
        }
        said.push(line);
    }
    let built = child.wait().map_err(cargo_missing)?.success();
    Ok((built, said))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dash_or_nothing_is_standard_input_and_a_file_is_made_absolute() {
        let stdin = ["--database", "workbook_05"];
        assert_eq!(
            deliver_args("workbook_05", Some("-"), false).unwrap(),
            stdin
        );
        assert_eq!(deliver_args("workbook_05", None, false).unwrap(), stdin);
        let manifest = env!("CARGO_MANIFEST_PATH");
        let args = deliver_args("workbook_05", Some(manifest), true).unwrap();
        assert_eq!(args, ["--database", "workbook_05", "--fresh", manifest]);
        assert!(
            deliver_args("x", Some("/"), false)
                .unwrap_err()
                .contains("is a folder")
        );
        assert!(
            deliver_args("x", Some("/no/such.jsonl"), false)
                .unwrap_err()
                .contains("no file")
        );
    }

    /// `break` refuses before building anything: a lesson it does not play, and a spec file that
    /// is not there (with the command to start from).
    #[test]
    fn break_refuses_a_lesson_without_specs_and_a_missing_file() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
        // Lesson 09's scenarios are specs its rule can judge only as shipped.
        let refused = breaking(&root, "09", "my.spec").unwrap_err();
        let says = "`break` does not play lesson 09's races yet";
        assert!(refused.contains(says), "{refused}");
        let missing = breaking(&root, "01", "/no/such.spec").unwrap_err();
        assert!(
            missing.contains("no spec file at /no/such.spec"),
            "{missing}"
        );
        assert!(
            missing.contains("lessons/01-check-then-act/specs/"),
            "{missing}"
        );
        // Lessons 02 to 05 share the order saga's specs.
        let shared = breaking(&root, "03", "/no/such.spec").unwrap_err();
        assert!(shared.contains("lessons/order-saga/specs/"), "{shared}");
    }
}
