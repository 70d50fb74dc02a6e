//! A verdict as data, for editors, graders and the class report: `cargo workbook check NN
//! --format json`, shaped like the results.json of Exercism's test runners (version 3: a
//! status for the whole run, and per test its name, status, message, output and test code),
//! with what this workbook knows besides: for each failing test, the violation as the test
//! made it (its kind, the section of the chapter it cites, its trace step by step, and its
//! statements), which the kit writes when `WORKBOOK_VERDICTS` asks for it. Nothing here reads
//! a violation back out of the printed message. `results.schema.json`, beside this crate's
//! manifest, is the shape; the runner's tests hold its real output to it.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::catalog::Lesson;
use crate::supervise::Finished;
use crate::tests_run::{self, Verdict};

/// The run, as JSON.
#[derive(Debug, Serialize)]
pub struct Results {
    /// Exercism's version of the format, whose fields these keep.
    pub version: u32,
    /// `pass`: every test passed; `fail`: some failed; `error`: the tests could not all run
    /// (the exercise does not compile, or a test was stopped at its deadline).
    pub status: Status,
    /// Why the status is `error`: the compiler's errors, or what stopped the tests.
    pub message: Option<String>,
    pub lesson: LessonShown,
    /// Every test that finished, by name, then any that were stopped.
    pub tests: Vec<TestResult>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Error,
}

/// A lesson as tools name it: the same three fields wherever the runner's JSON names one
/// (a run's lesson, a row of the status).
#[derive(Debug, Serialize)]
pub struct LessonNamed {
    pub number: &'static str,
    pub key: &'static str,
    pub title: &'static str,
}

impl From<&'static Lesson> for LessonNamed {
    fn from(lesson: &'static Lesson) -> Self {
        LessonNamed {
            number: lesson.number,
            key: lesson.key,
            title: lesson.title,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct LessonShown {
    #[serde(flatten)]
    pub named: LessonNamed,
    pub chapter: String,
}

#[derive(Debug, Serialize)]
pub struct TestResult {
    pub name: String,
    /// `error`: the test did not finish (its deadline, or the runner's, stopped it).
    pub status: Status,
    /// What the test printed as it failed: the teaching message, its trace included.
    pub message: Option<String>,
    /// Anything else it printed; these tests print nothing but their failure.
    pub output: Option<String>,
    /// What the test plays: its spec (the sessions, and its permutation), or where its
    /// scenario in Rust is listed.
    pub test_code: String,
    /// The violation it failed with, as the test made it (`null` when it failed otherwise: a
    /// panic, a deadline).
    pub violation: Option<Value>,
}

/// Runs `package`'s tests (`cargo test -p PACKAGE EXTRA…`) for `lesson`, with the kit asked to
/// write each failing test's violation and to record statements: the results, and the verdict
/// the words would have given.
pub fn run(
    root: &Path,
    lesson: &'static Lesson,
    package: &str,
    extra: &[&str],
) -> Result<(Results, Verdict), String> {
    let env = environment(root, lesson)?;
    let shown: Vec<(&str, &str)> = (env.iter())
        .map(|(name, path)| (*name, path.to_str().unwrap_or_default()))
        .collect();
    let finished = tests_run::supervised(root, package, extra, &shown)?;
    let results = of(lesson, &finished, &env[0].1);
    Ok((results, tests_run::verdict_of(&finished)))
}

/// The results as the runner prints them.
pub fn to_json(results: &impl Serialize) -> String {
    serde_json::to_string_pretty(results).unwrap_or_default()
}

/// What a run needs from the environment: where the kit writes the violations, and where the
/// statements it records go (recording is on, so each violation carries its statements).
pub fn environment(root: &Path, lesson: &Lesson) -> Result<Vec<(&'static str, PathBuf)>, String> {
    let scratch = root.join("target").join("workbook").join("results");
    let verdicts = scratch.join(lesson.folder).join("verdicts");
    let statements = scratch.join(lesson.folder).join("statements");
    for folder in [&verdicts, &statements] {
        // A file left by an earlier run would be taken for this run's.
        match std::fs::remove_dir_all(folder) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!("could not empty {}: {e}", folder.display()));
            }
            _ => {}
        }
    }
    Ok(vec![
        ("WORKBOOK_VERDICTS", verdicts),
        ("WORKBOOK_STATEMENTS", statements),
    ])
}

/// The results of `finished`, a run of `lesson`'s tests with [`environment`].
pub fn of(lesson: &'static Lesson, finished: &Finished, verdicts: &Path) -> Results {
    let verdict = tests_run::verdict_of(finished);
    let stdout = String::from_utf8_lossy(&finished.output.stdout);
    let stderr = String::from_utf8_lossy(&finished.output.stderr);
    let failures = match &verdict {
        Verdict::Failing(failures) => failures.clone(),
        _ => Vec::new(),
    };
    let code = TestCode::read(verdicts);
    let mut tests: Vec<TestResult> = finished_tests(&stdout)
        .into_iter()
        .map(|(name, passed)| {
            let violation = (!passed).then(|| violation(verdicts, &name)).flatten();
            let printed = (failures.iter().find(|f| f.test == name)).map(|f| printed(&f.message));
            // libtest prints a failure's message once every test has finished: a run stopped
            // before that leaves only the violation's own words, if the test made one.
            let unprinted = || match violation.as_ref().and_then(|v| v["message"].as_str()) {
                Some(message) => message.to_string(),
                None => "it failed, and the run was stopped before its message was printed".into(),
            };
            TestResult {
                status: if passed { Status::Pass } else { Status::Fail },
                message: (!passed).then(|| printed.unwrap_or_else(unprinted)),
                output: None,
                test_code: code.of(&name),
                violation,
                name,
            }
        })
        .collect();
    // libtest reports tests in the order they finished, which varies from run to run.
    tests.sort_by(|a, b| a.name.cmp(&b.name));
    let stopped = match (&finished.stalled, tests_run::stopped_by_the_kit(&stderr)) {
        (None, Some(stopped)) => Some(vec![(stopped.test, stopped.message)]),
        (Some(stall), _) => {
            let why = match &verdict {
                Verdict::Failing(failures) => failures[0].message.clone(),
                _ => String::new(),
            };
            Some(
                (stall.still_running.iter())
                    .map(|t| (t.clone(), why.clone()))
                    .collect(),
            )
        }
        (None, None) => None,
    };
    let (status, message) = match (&verdict, &stopped) {
        (Verdict::DoesNotCompile(errors), _) => (Status::Error, Some(errors.clone())),
        (_, Some(stopped)) => {
            for (name, why) in stopped {
                tests.push(TestResult {
                    name: name.clone(),
                    status: Status::Error,
                    message: Some(why.clone()),
                    output: None,
                    test_code: code.of(name),
                    violation: None,
                });
            }
            let names: Vec<&str> = stopped.iter().map(|(name, _)| name.as_str()).collect();
            let message = format!(
                "the tests were stopped: {} did not finish, so the tests after it did not run",
                names.join(", ")
            );
            (Status::Error, Some(message))
        }
        (Verdict::Solved, None) => (Status::Pass, None),
        (Verdict::Failing(failures), None) => {
            // A failure libtest did not name (cargo itself failed): said as the run's.
            let unnamed = failures.iter().find(|f| f.test == "(cargo test)");
            match unnamed {
                Some(failure) if tests.is_empty() => (Status::Error, Some(failure.message.clone())),
                _ => (Status::Fail, None),
            }
        }
    };
    Results {
        version: 3,
        status,
        message,
        lesson: LessonShown {
            named: lesson.into(),
            chapter: lesson.chapter(),
        },
        tests,
    }
}

/// `test NAME ... ok` / `... FAILED` lines: each finished test, and whether it passed. An
/// ignored test did not run, so it is no result.
fn finished_tests(stdout: &str) -> Vec<(String, bool)> {
    (stdout.lines())
        .filter_map(|line| {
            let rest = line.strip_prefix("test ")?;
            let (name, result) = rest.rsplit_once(" ... ")?;
            // A lesson's harness pads the names into a column.
            let name = name.trim_end();
            match result {
                "ok" => Some((name.to_string(), true)),
                "FAILED" => Some((name.to_string(), false)),
                _ => None,
            }
        })
        .collect()
}

/// A failure as libtest printed it, without the `Error: ` a failing `Result` opens with.
fn printed(message: &str) -> String {
    message
        .strip_prefix("Error: ")
        .unwrap_or(message)
        .to_string()
}

/// The violation the kit wrote for `test` (`a::b` is written `a-b`), if it wrote one.
fn violation(verdicts: &Path, test: &str) -> Option<Value> {
    let file = verdicts.join(format!("{}.json", test.replace("::", "-")));
    let text = std::fs::read_to_string(file).ok()?;
    serde_json::from_str(&text).ok()
}

/// What each test of a lesson plays, as the lesson's harness wrote it (`+listed.json`) where
/// the verdicts are: its spec's sessions and permutation, or where its scenario in Rust is
/// listed. A test the list does not name (a run that never started) is shown by its name.
struct TestCode(Vec<(String, String)>);

impl TestCode {
    fn read(verdicts: &Path) -> TestCode {
        let listed = std::fs::read_to_string(verdicts.join("+listed.json")).ok();
        let listed = listed.and_then(|text| serde_json::from_str::<Value>(&text).ok());
        let listed = listed.map(|json| {
            (json["tests"].as_array().into_iter().flatten())
                .map(|t| (t["name"].as_str(), t["code"].as_str()))
                .filter_map(|(name, code)| Some((name?.to_string(), code?.to_string())))
                .collect()
        });
        TestCode(listed.unwrap_or_default())
    }

    /// The code of the test `name`.
    fn of(&self, name: &str) -> String {
        let code = self.0.iter().find(|(test, _)| test == name);
        code.map_or_else(|| name.to_string(), |(_, code)| code.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_tests_are_read_with_their_result_and_ignored_ones_left_out() {
        let stdout = "running 3 tests\ntest a ... ok\ntest b::case_1 ... FAILED\n\
                      test c ... ignored\n\ntest result: FAILED.";
        assert_eq!(
            finished_tests(stdout),
            vec![("a".to_string(), true), ("b::case_1".to_string(), false)]
        );
    }

    /// A lesson on the kit's harness pads its names into a column.
    #[test]
    fn finished_tests_are_read_without_the_harness_padding() {
        let stdout = "running 2 tests\ntest a        ... ok\ntest b::case_1 ... FAILED\n";
        assert_eq!(
            finished_tests(stdout),
            vec![("a".to_string(), true), ("b::case_1".to_string(), false)]
        );
    }

    /// The kit's deadline ends the test process before libtest prints any failure's message:
    /// a test that had failed by then still says why (its violation's words), and the stopped
    /// one is the run's error.
    #[test]
    fn a_run_stopped_at_a_deadline_says_why_each_test_did_not_pass() {
        use std::os::unix::process::ExitStatusExt;
        let verdicts = tempfile::tempdir().unwrap();
        std::fs::write(
            verdicts.path().join("lost-case_1.json"),
            r#"{"kind": "Lost", "message": "the event was lost"}"#,
        )
        .unwrap();
        let finished = Finished {
            output: std::process::Output {
                status: std::process::ExitStatus::from_raw(256),
                stdout: b"running 3 tests\ntest fine ... ok\ntest lost::case_1 ... FAILED\n\
                          test unread ... FAILED\n"
                    .to_vec(),
                stderr: b"workbook: the test `slow` did not finish within 5 s, so its test \
                          process was stopped.\nerror: test failed\n"
                    .to_vec(),
            },
            stalled: None,
        };
        let results = of(&crate::catalog::LESSONS[0], &finished, verdicts.path());
        assert_eq!(results.status, Status::Error);
        let said: Vec<(&str, Status, Option<&str>)> = (results.tests.iter())
            .map(|t| (t.name.as_str(), t.status, t.message.as_deref()))
            .collect();
        assert_eq!(said[0], ("fine", Status::Pass, None));
        assert_eq!(
            said[1],
            ("lost::case_1", Status::Fail, Some("the event was lost"))
        );
        assert_eq!(said[2].0, "unread");
        assert!(
            said[2]
                .2
                .unwrap()
                .contains("stopped before its message was printed")
        );
        assert_eq!(said[3].0, "slow");
        assert_eq!(said[3].1, Status::Error);
        assert!(
            said[3].2.unwrap().contains("did not finish within 5 s"),
            "{said:?}"
        );
    }
}
