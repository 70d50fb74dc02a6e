//! One student's lessons, judged: the lessons they have not started are known without a run
//! (the exercise as shipped fails by design); every other lesson's tests run in the working
//! copy, and what the report keeps of the run is its results as data ([`results`]): solved, or
//! the kinds of violation the handler showed and the sections they cite.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::catalog::Lesson;
use crate::class::tree::{self, Files};
use crate::results::{self, Results, Status};
use crate::{shipped, tests_run};

/// What one lesson's exercise did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The exercise is as shipped: not run (it fails by design).
    NotStarted,
    /// The checkout has no folder for the lesson's exercise.
    Missing,
    Solved,
    /// The tests ran and some failed: each kind of violation, with how many tests showed it.
    Failing(Vec<Kind>),
    /// The exercise does not compile: the compiler's first error.
    DoesNotCompile(String),
    /// A test did not finish within the class's deadline (a handler that loops, or waits for
    /// ever): the test.
    Stopped(String),
    /// The run itself could not be made (cargo missing, a file that could not be written).
    NotJudged(String),
}

impl Outcome {
    /// The outcome as the report's table says it.
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::NotStarted => "not started",
            Outcome::Missing => "missing",
            Outcome::Solved => "solved",
            Outcome::Failing(_) => "not yet",
            Outcome::DoesNotCompile(_) => "does not compile",
            Outcome::Stopped(_) => "stopped at its deadline",
            Outcome::NotJudged(_) => "not judged",
        }
    }

    /// What follows the word: the kinds, the compiler's error, the test that was stopped.
    pub fn detail(&self) -> String {
        match self {
            Outcome::Failing(kinds) => (kinds.iter())
                .map(|k| format!("{} ({})", k.name, k.tests))
                .collect::<Vec<_>>()
                .join("; "),
            Outcome::DoesNotCompile(error) => error.clone(),
            Outcome::Stopped(test) => test.clone(),
            Outcome::NotJudged(why) => why.clone(),
            _ => String::new(),
        }
    }
}

/// A kind of violation, as the kit names it, and the section of the chapter it cites.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kind {
    pub name: String,
    pub cites: String,
    pub tests: usize,
}

/// A lesson's outcome, and how far its files are from the solution's.
#[derive(Debug, Clone)]
pub struct Judged {
    pub lesson: &'static Lesson,
    pub outcome: Outcome,
    /// Lines added or removed, counted against the solution (`None` when not started).
    pub lines_from_solution: Option<usize>,
}

/// Where a class's runs happen.
pub struct Runs<'a> {
    pub teacher: &'a Path,
    pub work: &'a Path,
    pub target: &'a Path,
    /// The kit's deadline for each test, in seconds.
    pub deadline: u64,
    /// Outcomes by lesson and content: the suites fail every run or none, so two students
    /// with the same handler get the same verdict, and the second is not run again.
    pub known: HashMap<(&'static str, Vec<u8>), Outcome>,
}

impl Runs<'_> {
    /// `lesson` for the student whose files are `files` (already laid in the working copy).
    /// `ours` says the rest of the working copy is the teacher's: a trusted checkout that
    /// changed a test is judged by its own run, never by another student's with the same
    /// handler.
    pub fn judge(&mut self, lesson: &'static Lesson, files: &Files, ours: bool) -> Judged {
        let exercise = PathBuf::from("exercises").join(lesson.folder);
        let theirs: Vec<(PathBuf, Vec<u8>)> = (files.iter())
            .filter(|(path, _)| path.starts_with(&exercise))
            .filter(|(path, _)| crate::class::integrity::is_the_students(path))
            .map(|(path, at)| {
                let inside = path.strip_prefix(&exercise).expect("inside").to_path_buf();
                (inside, std::fs::read(at).unwrap_or_default())
            })
            .collect();
        if !files.keys().any(|p| p.starts_with(&exercise)) {
            return Judged {
                lesson,
                outcome: Outcome::Missing,
                lines_from_solution: None,
            };
        }
        if as_shipped(lesson, &theirs) {
            return Judged {
                lesson,
                outcome: Outcome::NotStarted,
                lines_from_solution: None,
            };
        }
        let solution = self.teacher.join("solutions").join(lesson.folder);
        let lines = lines_from(&solution, &theirs);
        let key = (lesson.folder, content_key(&theirs));
        let outcome = match (ours, self.known.get(&key)) {
            (true, Some(known)) => known.clone(),
            (true, None) => {
                let outcome = self.run(lesson);
                self.known.insert(key, outcome.clone());
                outcome
            }
            (false, _) => self.run(lesson),
        };
        Judged {
            lesson,
            outcome,
            lines_from_solution: Some(lines),
        }
    }

    fn run(&self, lesson: &'static Lesson) -> Outcome {
        let env = match results::environment(self.work, lesson) {
            Ok(env) => env,
            Err(why) => return Outcome::NotJudged(why),
        };
        let verdicts = env[0].1.clone();
        let target = self.target.to_string_lossy().into_owned();
        let deadline = self.deadline.to_string();
        let mut vars: Vec<(&str, &str)> = (env.iter())
            .map(|(name, path)| (*name, path.to_str().unwrap_or_default()))
            .collect();
        // The class's own target: a student's build must never land in the teacher's.
        vars.push(("CARGO_TARGET_DIR", &target));
        vars.push(("WORKBOOK_TEST_DEADLINE", &deadline));
        // Incremental compilation pays off for one author editing one crate; a class's
        // crates are each built once per student, and its caches would hold a gigabyte.
        vars.push(("CARGO_INCREMENTAL", "0"));
        let package = lesson.exercise_package();
        match tests_run::supervised(self.work, &package, &[], &vars) {
            Ok(finished) => outcome_of(&results::of(lesson, &finished, &verdicts)),
            Err(why) => Outcome::NotJudged(why),
        }
    }
}

/// The outcome a run's results say.
pub fn outcome_of(results: &Results) -> Outcome {
    if let Some(stopped) = results.tests.iter().find(|t| t.status == Status::Error) {
        return Outcome::Stopped(stopped.name.clone());
    }
    match results.status {
        Status::Pass => Outcome::Solved,
        Status::Error => {
            let message = results.message.clone().unwrap_or_default();
            let first = (message.lines())
                .find(|l| l.starts_with("error"))
                .unwrap_or_else(|| message.lines().next().unwrap_or("cargo test failed"));
            Outcome::DoesNotCompile(first.to_string())
        }
        Status::Fail => {
            let mut kinds: HashMap<(String, String), usize> = HashMap::new();
            for test in results.tests.iter().filter(|t| t.status == Status::Fail) {
                let violation = test.violation.as_ref();
                let name = violation.and_then(|v| v["kind"].as_str());
                let cites = violation.map(|v| &v["cites"]).map(|c| {
                    match (c["lesson"].as_str(), c["section"].as_str()) {
                        (Some(lesson), Some(section)) => format!("{lesson} · {section}"),
                        _ => String::new(),
                    }
                });
                let key = (
                    name.unwrap_or("NoViolation").to_string(),
                    cites.unwrap_or_default(),
                );
                *kinds.entry(key).or_default() += 1;
            }
            let mut kinds: Vec<Kind> = (kinds.into_iter())
                .map(|((name, cites), tests)| Kind { name, cites, tests })
                .collect();
            kinds.sort_by(|a, b| b.tests.cmp(&a.tests).then(a.name.cmp(&b.name)));
            Outcome::Failing(kinds)
        }
    }
}

/// Whether the student's files for `lesson` are the shipped exercise's.
fn as_shipped(lesson: &Lesson, theirs: &[(PathBuf, Vec<u8>)]) -> bool {
    let shipped = shipped::files(lesson);
    shipped.len() == theirs.len()
        && (shipped.iter()).all(|(path, bytes)| {
            (theirs.iter()).any(|(p, b)| p.as_path() == *path && tree::same_text(b, bytes))
        })
}

/// The student's files as one key, line endings aside.
fn content_key(theirs: &[(PathBuf, Vec<u8>)]) -> Vec<u8> {
    let mut key = Vec::new();
    for (path, bytes) in theirs {
        key.extend(path.to_string_lossy().as_bytes());
        key.push(0);
        key.extend(bytes.iter().filter(|&&b| b != b'\r'));
        key.push(0);
    }
    key
}

/// Lines added or removed between the solution's `src/` and `migrations/` and the student's.
fn lines_from(solution: &Path, theirs: &[(PathBuf, Vec<u8>)]) -> usize {
    let mut ours: Vec<(PathBuf, String)> = Vec::new();
    if let Ok(files) = tree::files(solution, &[]) {
        for (path, at) in files {
            if path.starts_with("src") || path.starts_with("migrations") {
                ours.push((path, std::fs::read_to_string(at).unwrap_or_default()));
            }
        }
    }
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).replace("\r\n", "\n");
    let mut lines = 0;
    for (path, bytes) in theirs {
        let old = (ours.iter())
            .find(|(p, _)| p == path)
            .map(|(_, t)| t.as_str())
            .unwrap_or("");
        lines += changed_lines(old, &text(bytes));
    }
    for (path, old) in &ours {
        if !theirs.iter().any(|(p, _)| p == path) {
            lines += changed_lines(old, "");
        }
    }
    lines
}

fn changed_lines(old: &str, new: &str) -> usize {
    let diff = similar::TextDiff::from_lines(old, new);
    (diff.iter_all_changes())
        .filter(|c| c.tag() != similar::ChangeTag::Equal)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_counts_the_lines_added_and_removed() {
        assert_eq!(changed_lines("a\nb\nc\n", "a\nB\nc\nd\n"), 3);
        assert_eq!(changed_lines("a\n", "a\n"), 0);
    }

    #[test]
    fn the_shipped_exercise_is_known_not_started_and_an_edit_is_not() {
        let lesson = &crate::catalog::LESSONS[0];
        let mut theirs: Vec<(PathBuf, Vec<u8>)> = (shipped::files(lesson).into_iter())
            .map(|(path, bytes)| (path.to_path_buf(), bytes.to_vec()))
            .collect();
        assert!(as_shipped(lesson, &theirs));
        theirs[0].1.extend(b"// mine\n");
        assert!(!as_shipped(lesson, &theirs));
    }
}
