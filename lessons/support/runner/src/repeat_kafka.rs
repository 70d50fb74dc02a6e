//! `cargo workbook repeat NN --kafka`: the lesson's Kafka tests, each run K times against the
//! shipped exercise and the solution, and counted. Each run is a fresh test process with its
//! own PostgreSQL cluster and broker, as a student's `check NN --kafka` is.
//!
//! A run against the exercise counts as caught only when it fails saying what the catalog
//! says its failure says (its manifest's `[[kafka.caught]]`); the exercise is not run on the tests it
//! passes, which catch other mistakes than the shipped one.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::catalog::Lesson;
use crate::tests_run;

/// Which tests to run, by parts of their names.
pub struct Filter<'a> {
    pub only: &'a [String],
    pub skip: &'a [String],
}

impl Filter<'_> {
    fn chooses(&self, name: &str) -> bool {
        (self.only.is_empty() || self.only.iter().any(|text| name.contains(text.as_str())))
            && !self.skip.iter().any(|text| name.contains(text.as_str()))
    }
}

pub fn repeat(
    root: &Path,
    lesson: &Lesson,
    runs: u32,
    filter: Filter<'_>,
) -> Result<ExitCode, String> {
    eprintln!("building the Kafka tests of the exercise and the solution …");
    let exercise = test_binary(root, &lesson.exercise_package())?;
    let solution = test_binary(root, &lesson.solution_package())?;
    let tests: Vec<String> = (list(&solution)?.into_iter())
        .filter(|name| filter.chooses(name))
        .collect();
    if tests.is_empty() {
        return Err("no Kafka test of the lesson has a name that --only and --skip allow".into());
    }
    println!(
        "lesson {} ({}) on Kafka, {runs} runs of each test",
        lesson.number, lesson.title
    );
    let mut all_good = true;
    for test in &tests {
        let caught =
            (lesson.kafka().map_or(&[][..], |k| k.caught).iter()).find(|c| c.test == test.as_str());
        let dirs = (lesson.exercise_dir(root), lesson.solution_dir(root));
        let exercise_column = match caught {
            Some(caught) => {
                let count = count(&exercise, &dirs.0, test, runs, |run| {
                    run.failed && run.output.contains(caught.says)
                })?;
                all_good &= count.matched == runs;
                let column = format!("{}/{runs} caught", count.matched);
                (column, count.first_other.map(|o| format!("exercise: {o}")))
            }
            None => ("(passes: not its failure)".to_string(), None),
        };
        let count = count(&solution, &dirs.1, test, runs, |run| !run.failed)?;
        all_good &= count.matched == runs;
        println!(
            "{test}\n    exercise: {:<30} solution: {}/{runs} passed",
            exercise_column.0, count.matched
        );
        let solution_note = count.first_other.map(|o| format!("solution: {o}"));
        for note in [exercise_column.1, solution_note].into_iter().flatten() {
            println!("    first unexpected result: {note}");
        }
    }
    Ok(if all_good {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// One run of one test.
struct Run {
    failed: bool,
    output: String,
}

/// How many of `runs` runs `expected` held for, and what the first other one printed.
struct Count {
    matched: u32,
    first_other: Option<String>,
}

fn count(
    binary: &Path,
    package_dir: &Path,
    test: &str,
    runs: u32,
    expected: impl Fn(&Run) -> bool,
) -> Result<Count, String> {
    let mut found = Count {
        matched: 0,
        first_other: None,
    };
    let side = package_dir.parent().and_then(Path::file_name);
    let side = side.map_or(String::new(), |s| s.to_string_lossy().into_owned());
    for done in 1..=runs {
        let run = run_once(binary, package_dir, test)?;
        if expected(&run) {
            found.matched += 1;
        } else if found.first_other.is_none() {
            found.first_other = Some(first_words(&run));
        }
        if console::Term::stderr().is_term() {
            eprint!(
                "\r{test} ({side}): {done}/{runs} runs, {} as expected",
                found.matched
            );
        }
    }
    if console::Term::stderr().is_term() {
        eprint!("\r{}\r", " ".repeat(test.len() + 50));
    }
    Ok(found)
}

/// Runs the one test in a process of its own, from its package's folder, as `cargo test` does.
fn run_once(binary: &Path, package_dir: &Path, test: &str) -> Result<Run, String> {
    let output = Command::new(binary)
        .args([test, "--exact", "--test-threads", "1"])
        .current_dir(package_dir)
        .env("RUST_BACKTRACE", "0")
        .output()
        .map_err(|e| format!("could not run {}: {e}", binary.display()))?;
    Ok(Run {
        failed: !output.status.success(),
        output: String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr),
    })
}

/// What a run that surprised us said first: its passing, or its failure's first line.
fn first_words(run: &Run) -> String {
    if !run.failed {
        return "passed".into();
    }
    let line = (run.output.lines())
        .find(|line| line.starts_with("Error: ") || line.contains("did not finish within"))
        .unwrap_or("failed, with no message the runner could read");
    line.chars().take(300).collect()
}

/// Builds `package`'s Kafka test target, and returns its executable.
fn test_binary(root: &Path, package: &str) -> Result<PathBuf, String> {
    let output = tests_run::cargo(root)
        .args([
            "test",
            "-p",
            package,
            "--features",
            "kafka",
            "--test",
            "kafka",
        ])
        .args(["--no-run", "--message-format", "json-render-diagnostics"])
        .output()
        .map_err(tests_run::cargo_missing)?;
    if !output.status.success() {
        return Err(format!(
            "{package}'s Kafka tests did not build:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    (stdout.lines())
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["target"]["name"] == "kafka")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| format!("cargo built {package}'s Kafka tests but named no test binary"))
}

/// The names of the tests in `binary`.
fn list(binary: &Path) -> Result<Vec<String>, String> {
    let output = Command::new(binary)
        .args(["--list", "--format", "terse"])
        .output()
        .map_err(|e| format!("could not run {}: {e}", binary.display()))?;
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .map(str::to_string)
        .collect())
}
