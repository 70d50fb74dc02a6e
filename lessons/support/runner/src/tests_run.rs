//! Running an exercise's tests with cargo, and reading the verdict out of what cargo prints.

use std::path::Path;
use std::process::{Command, Output};

use crate::catalog::Lesson;
use crate::progress_clock::{self, Stall};
use crate::supervise;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Solved,
    /// The tests ran and some failed; each failure with its teaching message.
    Failing(Vec<Failure>),
    /// The exercise does not compile; the compiler's errors.
    DoesNotCompile(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub test: String,
    pub message: String,
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Solved => "solved",
            Verdict::Failing(_) => "not yet",
            Verdict::DoesNotCompile(_) => "does not compile",
        }
    }
}

/// Runs `cargo test -p exercise-…` for `lesson`, from the workspace root.
pub fn run(root: &Path, lesson: &Lesson) -> Result<Verdict, String> {
    test_package(root, &lesson.exercise_package(), &[], &[])
}

/// The lesson's Kafka track: `cargo test -p exercise-… --features kafka --test kafka`.
pub fn run_on_kafka(root: &Path, lesson: &Lesson) -> Result<Verdict, String> {
    let package = lesson.exercise_package();
    test_package(
        root,
        &package,
        &["--features", "kafka", "--test", "kafka"],
        &[],
    )
}

/// `cargo test -p <package> [extra…]`, with the variables `env`, supervised, and its verdict.
pub fn test_package(
    root: &Path,
    package: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Result<Verdict, String> {
    Ok(verdict_of(&supervised(root, package, extra, env)?))
}

/// The verdict of a supervised run.
pub fn verdict_of(finished: &supervise::Finished) -> Verdict {
    match &finished.stalled {
        Some(stall) => did_not_finish(stall),
        None => read_verdict(&finished.output),
    }
}

/// `cargo test -p <package> [extra…]`, with the variables `env`, supervised: what it printed,
/// and whether the runner stopped it.
pub fn supervised(
    root: &Path,
    package: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Result<supervise::Finished, String> {
    let mut command = cargo(root);
    command
        .args(["test", "--color", "never", "-p", package])
        .args(extra)
        .env("RUST_BACKTRACE", "0")
        .envs(env.iter().copied());
    let mut building = crate::building::Building::new();
    let progress: supervise::OnLine = Box::new(move |line| building.line(line));
    // Each test has a deadline of its own in the kit (60 s), which ends its process with a
    // message naming it; this bound is for whatever the kit cannot see.
    let limit = progress_clock::quiet_limit();
    supervise::run(command, limit, Some(progress)).map_err(cargo_missing)
}

/// The cargo that started us (`cargo workbook` sets `CARGO`), or the one on the PATH.
///
/// `cargo run` hands the runner variables that describe the runner's own package
/// (`CARGO_MANIFEST_DIR`, `CARGO_PKG_NAME`, …). Passed on to a child cargo, they reach build
/// scripts that watch them, which then count as changed, and the child rebuilds a dozen crates
/// that `cargo test -p exercise-…` had built without them; the next plain `cargo test` rebuilds
/// them back. So the child gets the environment the student's own shell has.
pub fn cargo(root: &Path) -> Command {
    let program = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(program);
    command.current_dir(root);
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(set_by_cargo_run) {
            command.env_remove(name);
        }
    }
    command
}

/// The variables `cargo run` sets for the program it runs, as opposed to the `CARGO_*`
/// settings a person may export (`CARGO_HOME`, `CARGO_TARGET_DIR`, `CARGO_BUILD_JOBS`, …).
fn set_by_cargo_run(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || matches!(
            name,
            "CARGO_MANIFEST_DIR"
                | "CARGO_MANIFEST_PATH"
                | "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "CARGO_RUSTC_CURRENT_DIR"
        )
}

pub fn cargo_missing(error: std::io::Error) -> String {
    format!(
        "could not run cargo ({error}). The workbook needs a Rust toolchain, 1.94 or newer: \
         install it from https://rustup.rs, then run this again."
    )
}

pub fn read_verdict(output: &Output) -> Verdict {
    if output.status.success() {
        return Verdict::Solved;
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if let Some(stopped) = stopped_by_the_kit(&stderr) {
        return Verdict::Failing(vec![stopped]);
    }
    if stderr.contains("could not compile") && !stdout.contains("running ") {
        return Verdict::DoesNotCompile(compiler_errors(&stderr));
    }
    let mut failures = failures(&stdout);
    // libtest reports failures in the order they finished, which varies from run to run; by
    // name, the same exercise always reads the same (and the book can show it verbatim).
    failures.sort_by(|a, b| a.test.cmp(&b.test));
    if failures.is_empty() {
        // Failed, but not in a way we can read: show the end of what cargo said.
        let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
        return Verdict::Failing(vec![Failure {
            test: "(cargo test)".into(),
            message: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        }]);
    }
    Verdict::Failing(failures)
}

/// The kit's deadline (`kit::DID_NOT_FINISH`) ended the test process; its message names the
/// test and says what a test that never ends usually waits on.
pub fn stopped_by_the_kit(stderr: &str) -> Option<Failure> {
    const DID_NOT_FINISH: &str = "did not finish within";
    let lines: Vec<&str> = stderr.lines().collect();
    let first = lines
        .iter()
        .position(|line| line.starts_with("workbook: ") && line.contains(DID_NOT_FINISH))?;
    let test = lines[first]
        .split('`')
        .nth(1)
        .unwrap_or("(a test)")
        .to_string();
    let message: Vec<&str> = lines[first..]
        .iter()
        .take_while(|line| !line.starts_with("error: test failed"))
        .copied()
        .collect();
    Some(Failure {
        test,
        message: message
            .join("\n")
            .trim_start_matches("workbook: ")
            .to_string(),
    })
}

/// No test finished for the quiet limit, so the runner ended the tests: say what it saw (how
/// many had finished, which were still running), and what can keep a test running that long.
fn did_not_finish(stall: &Stall) -> Verdict {
    let minutes = stall.quiet.as_secs().div_ceil(60);
    let which = match stall.still_running.as_slice() {
        [] => String::new(),
        names => format!(" Still running: {}.", names.join(", ")),
    };
    Verdict::Failing(vec![Failure {
        test: "(cargo test)".into(),
        message: format!(
            "no test finished for {minutes} minutes ({} had finished before), so the tests were \
             stopped.{which} The kit stops a test that runs for over a minute on its database, \
             with a message naming it; these ran longer and were not stopped by it. A test \
             still running after that long is either waiting on something that never comes (a \
             loop that never ends, a transaction never committed or rolled back, a statement on \
             a second connection waiting for a row the handler's own transaction has locked), or \
             on a machine far busier than usual: then set WORKBOOK_TEST_DEADLINE=<seconds> (the \
             kit's limit; this one is four times it) and check again.",
            stall.finished
        ),
    }])
}

/// The `error…` blocks of a failed build, without cargo's progress lines.
fn compiler_errors(stderr: &str) -> String {
    let mut kept = Vec::new();
    let mut in_error = false;
    for line in stderr.lines() {
        if line.starts_with("error") || line.starts_with("warning") {
            in_error = line.starts_with("error");
        } else if line.trim_start().starts_with("Compiling") {
            in_error = false;
        }
        if in_error {
            kept.push(line);
        }
    }
    kept.join("\n").trim().to_string()
}

/// Each `---- name stdout ----` section of libtest's output (`---- name ----` where a lesson's
/// own harness ran the tests): the test and what it printed.
fn failures(stdout: &str) -> Vec<Failure> {
    let mut found = Vec::new();
    let mut current: Option<(String, Vec<&str>)> = None;
    for line in stdout.lines() {
        let header = (line
            .strip_prefix("---- ")
            .and_then(|rest| rest.strip_suffix(" ----")))
        .map(|rest| rest.strip_suffix(" stdout").unwrap_or(rest));
        if (header.is_some() || line == "failures:")
            && let Some((test, lines)) = current.take()
        {
            found.push(Failure {
                test,
                message: lines.join("\n").trim().to_string(),
            });
        }
        if let Some(test) = header {
            current = Some((test.to_string(), Vec::new()));
        } else if let Some((_, lines)) = &mut current {
            lines.push(line);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo test` runs this with the variables `cargo run` gives the runner, so the child
    /// command must remove them (and keep what a person sets, such as `CARGO_HOME`).
    #[test]
    fn a_child_cargo_does_not_inherit_the_runners_package_variables() {
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
        let command = cargo(Path::new("."));
        let removed: Vec<String> = command
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(name, _)| name.to_string_lossy().into_owned())
            .collect();
        for name in ["CARGO_MANIFEST_DIR", "CARGO_PKG_NAME", "CARGO_PKG_VERSION"] {
            assert!(
                removed.iter().any(|r| r == name),
                "{name} is passed on: {removed:?}"
            );
        }
        assert!(!set_by_cargo_run("CARGO_HOME"));
        assert!(!set_by_cargo_run("CARGO_TARGET_DIR"));
    }

    /// A lesson on the kit's harness prints `---- NAME ----`, without `stdout`.
    #[test]
    fn failures_are_read_from_the_harness_output_too() {
        let stdout = "running 2 tests\n\
                      test a        ... FAILED\ntest b::case_1 ... FAILED\n\nfailures:\n\n\
                      ---- a ----\nError: credited 2 times\n\n\
                      ---- b::case_1 ----\nError: lost\n\n\nfailures:\n    a\n    b::case_1\n";
        let read: Vec<(String, String)> = (failures(stdout).into_iter())
            .map(|f| (f.test, f.message))
            .collect();
        assert_eq!(
            read,
            [
                ("a", "Error: credited 2 times"),
                ("b::case_1", "Error: lost")
            ]
            .map(|(t, m)| (t.to_string(), m.to_string()))
        );
    }

    #[test]
    fn failures_are_read_from_libtest_output() {
        let stdout = "running 2 tests\n\
                      test a ... FAILED\n\nfailures:\n\n\
                      ---- a stdout ----\nError: the order was announced 2 times\nline two\n\n\
                      ---- b::case_1 stdout ----\nError: lost\n\n\
                      failures:\n    a\n    b::case_1\n";
        assert_eq!(
            failures(stdout),
            vec![
                Failure {
                    test: "a".into(),
                    message: "Error: the order was announced 2 times\nline two".into()
                },
                Failure {
                    test: "b::case_1".into(),
                    message: "Error: lost".into()
                },
            ]
        );
    }

    #[test]
    fn a_test_stopped_by_the_kits_deadline_is_named_with_the_kits_words() {
        let stderr = "     Running tests/01-check-then-act.rs (target/debug/deps/x)\n\
                      workbook: the test `forced_interleaving` did not finish within 60 s, so \
                      its test process was stopped.\n\
                      A test of this workbook takes a few seconds at most.\n  \
                      - a loop that never ends;\n\
                      To wait longer, set WORKBOOK_TEST_DEADLINE=<seconds>.\n\
                      error: test failed, to rerun pass `--test 01-check-then-act`\n";
        let stopped = stopped_by_the_kit(stderr).unwrap();
        assert_eq!(stopped.test, "forced_interleaving");
        assert!(
            stopped
                .message
                .starts_with("the test `forced_interleaving` did not finish")
        );
        assert!(
            stopped
                .message
                .ends_with("WORKBOOK_TEST_DEADLINE=<seconds>.")
        );
    }

    #[test]
    fn a_stall_says_what_had_finished_and_names_what_was_still_running() {
        let stall = Stall {
            quiet: std::time::Duration::from_secs(240),
            finished: 171,
            still_running: vec!["lesson_07_a".into(), "lesson_12_b".into()],
        };
        let Verdict::Failing(failures) = did_not_finish(&stall) else {
            panic!("a stall is a failure")
        };
        let message = &failures[0].message;
        assert!(
            message.starts_with("no test finished for 4 minutes (171 had finished before)"),
            "{message}"
        );
        assert!(
            message.contains("Still running: lesson_07_a, lesson_12_b."),
            "{message}"
        );
    }

    #[test]
    fn compiler_errors_keep_the_errors_and_drop_the_progress() {
        let stderr = "   Compiling exercise v0.1.0\n\
                      error[E0425]: cannot find value `tx`\n --> src/lib.rs:3:5\n\n\
                      warning: unused import\n --> src/lib.rs:1:1\n\
                      error: could not compile `exercise` due to 1 previous error\n";
        let errors = compiler_errors(stderr);
        assert!(errors.starts_with("error[E0425]"), "{errors}");
        assert!(errors.contains("src/lib.rs:3:5"), "{errors}");
        assert!(!errors.contains("unused import"), "{errors}");
        assert!(!errors.contains("Compiling"), "{errors}");
    }
}
