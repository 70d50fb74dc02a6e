//! One harness for a lesson's tests: what `cargo test` runs for an exercise and its solution.
//!
//! A lesson's tests are data: every permutation of its shipped specs that names a test (`test
//! NAME`), and the few scenarios still written in Rust, each a [`Rust`] line of the lesson's own.
//! [`Listed`] is that list, read once; [`main`] runs it as `cargo test` would (filters, `--exact`,
//! `--list`, threads), each test on a runtime of its own, and a failing test prints its violation
//! and, when `WORKBOOK_VERDICTS` names a folder, writes it there as data, from the value the test
//! returned. A lesson's test file is then one call:
//! `check_then_act::subject!(handler::apply_credit).tested_by::<check_then_act::Lesson>()`.

use std::fmt;
use std::future::Future;
use std::process::ExitCode;

use libtest_mimic::{Arguments, Failed, Trial};

use super::contract::{self, Lesson};
use super::spec::Shipped;
use super::subject::{Handler, Subject};
use crate::words::teaching::{Explain, Violation};

/// A scenario written in Rust, as its lesson lists it.
#[derive(Debug, Clone, Copy)]
pub struct Rust {
    pub name: &'static str,
    /// A race or fault the shipped exercise loses: `cargo repeat` counts it.
    pub repeat: bool,
    /// Played on a runtime with real parallelism (two worker threads), as a barrier needs.
    pub multi_thread: bool,
    /// One test per case, `NAME::case_N_CASE`, each with its value (the barrier's workers).
    pub cases: &'static [(&'static str, &'static str)],
}

impl Rust {
    /// A scenario run once, on one thread, that `cargo repeat` does not count.
    pub const fn once(name: &'static str) -> Rust {
        Rust {
            name,
            repeat: false,
            multi_thread: false,
            cases: &[],
        }
    }
}

/// A test a lesson picks from specs and scenarios it shares with other lessons: the order
/// saga's four lessons play one crate's specs, each its own permutations, under its own names,
/// and its own exercise decides which of them are races it loses.
#[derive(Debug, Clone, Copy)]
pub enum Pick {
    /// The permutation of spec `file` whose `test` line says `test`, played as the lesson's test
    /// `name`; `repeat` when the lesson's shipped exercise loses it.
    Spec {
        file: &'static str,
        test: &'static str,
        name: &'static str,
        repeat: bool,
    },
    /// A scenario in Rust, played by the lesson's `play_rust`.
    Rust(Rust),
}

impl Pick {
    /// The permutation `test` of spec `file`, under its own name, not repeated.
    pub const fn spec(file: &'static str, test: &'static str) -> Pick {
        Pick::Spec {
            file,
            test,
            name: test,
            repeat: false,
        }
    }

    /// The same test, under the lesson's own name for it.
    pub const fn named(self, name: &'static str) -> Pick {
        match self {
            Pick::Spec {
                file, test, repeat, ..
            } => Pick::Spec {
                file,
                test,
                name,
                repeat,
            },
            Pick::Rust(rust) => Pick::Rust(Rust { name, ..rust }),
        }
    }

    /// The same test, a race or fault the lesson's shipped exercise loses: `cargo repeat`
    /// counts it.
    pub const fn repeat(self) -> Pick {
        match self {
            Pick::Spec {
                file, test, name, ..
            } => Pick::Spec {
                file,
                test,
                name,
                repeat: true,
            },
            Pick::Rust(rust) => Pick::Rust(Rust {
                repeat: true,
                ..rust
            }),
        }
    }
}

/// One test, by the name `cargo test` prints.
#[derive(Debug, Clone, Copy)]
pub struct Test {
    pub name: &'static str,
    /// A race or fault the shipped exercise loses: `cargo repeat` counts it. A spec's test is
    /// one when its permutation expects the exercise to fail (`expect exercise KIND`).
    pub repeat: bool,
    pub multi_thread: bool,
    /// The shipped permutation it plays: its spec's file, and the test its `test` line names.
    pub spec: Option<(&'static str, &'static str)>,
    /// Its case's value, as written, for a test with cases.
    pub case: Option<&'static str>,
    /// The rounds it plays when nothing is caught: a released permutation's, or 1.
    pub rounds: usize,
    /// What it plays, for tools (`cargo workbook check --format json`): its spec's sessions and
    /// permutation, or where its scenario in Rust is listed.
    pub code: &'static str,
}

/// A lesson's tests: its specs' first, in file order, then its scenarios in Rust; and the same,
/// as the maintainers' checks read them.
#[derive(Debug)]
pub struct Listed {
    folder: &'static str,
    pub tests: Vec<Test>,
    /// Every test's name.
    pub names: Vec<&'static str>,
    /// Each case's test, and its value as written.
    pub cases: Vec<(&'static str, &'static str)>,
    /// The tests `cargo repeat` counts, a test with cases once, by its name without the case.
    pub repeat: Vec<&'static str>,
    /// The shipped permutations played: each one's spec file, and its test.
    pub specs: Vec<(&'static str, &'static str)>,
}

impl Listed {
    /// The tests `picks` names, in its order; or, when it names none, every permutation of the
    /// shipped specs that names a test (in file order, each repeated when it expects the
    /// exercise to fail), then the scenarios in Rust.
    pub fn new(shipped: &Shipped, rust: &[Rust], picks: &[Pick]) -> Listed {
        let folder = shipped.folder();
        let every: Vec<Pick>;
        let picks = match picks.is_empty() {
            false => picks,
            true => {
                every = every_test(shipped, rust);
                &every
            }
        };
        let mut tests = Vec::new();
        for pick in picks {
            match *pick {
                Pick::Spec {
                    file,
                    test,
                    name,
                    repeat,
                } => {
                    let (_, permutation, _) = shipped.test(file, test);
                    let code = format!("# {file}\n{}", shipped.code(file, test));
                    tests.push(Test {
                        name,
                        repeat,
                        // Workers released together race for real only on threads of their own.
                        multi_thread: permutation.barrier.is_some(),
                        spec: Some((file, test)),
                        case: None,
                        rounds: permutation.barrier.map_or(1, |r| r.rounds),
                        code: Box::leak(code.into()),
                    });
                }
                Pick::Rust(scenario) => rust_tests(folder, scenario, &mut tests),
            }
        }
        let mut repeat: Vec<&'static str> = (tests.iter().filter(|t| t.repeat))
            .map(|t| t.name.split("::").next().unwrap_or(t.name))
            .collect();
        repeat.dedup();
        Listed {
            folder,
            names: tests.iter().map(|t| t.name).collect(),
            cases: (tests.iter())
                .filter_map(|t| Some((t.name, t.case?)))
                .collect(),
            specs: tests.iter().filter_map(|t| t.spec).collect(),
            repeat,
            tests,
        }
    }

    /// The test `name`; one the lesson does not list is the caller's bug.
    pub fn test(&self, name: &str) -> &Test {
        (self.tests.iter().find(|t| t.name == name))
            .unwrap_or_else(|| panic!("{} lists no test {name}", self.folder))
    }

    /// The rounds the test `name` plays when nothing is caught, for a lesson whose list says
    /// (`None` for one not yet on the contract, or a scenario in Rust).
    pub fn rounds(&self, name: &str) -> Option<usize> {
        let test = self.tests.iter().find(|t| t.name == name)?;
        (test.rounds > 1).then_some(test.rounds)
    }

    /// The value of the case `name` is, read as its scenario takes it.
    pub fn case<T: std::str::FromStr>(&self, name: &str) -> T {
        let value = self.test(name).case;
        (value.and_then(|v| v.parse().ok()))
            .unwrap_or_else(|| panic!("{}: {name} has no case value it can read", self.folder))
    }
}

/// Every permutation of the shipped specs that names a test, then the scenarios in Rust.
fn every_test(shipped: &Shipped, rust: &[Rust]) -> Vec<Pick> {
    let mut every = Vec::new();
    for (file, spec) in shipped.all() {
        for permutation in &spec.permutations {
            let Some(test) = permutation.test.as_deref() else {
                continue;
            };
            let pick = Pick::spec(file, Box::leak(test.into()));
            every.push(match permutation.exercise_fails() {
                true => pick.repeat(),
                false => pick,
            });
        }
    }
    every.extend(rust.iter().map(|&scenario| Pick::Rust(scenario)));
    every
}

/// A scenario in Rust's test, or one test for each of its cases.
fn rust_tests(folder: &str, scenario: Rust, tests: &mut Vec<Test>) {
    let code = format!(
        "# {folder}: a scenario in Rust, listed by its `kit::Lesson`\n{}",
        scenario.name
    );
    let plain = Test {
        code: Box::leak(code.into()),
        name: scenario.name,
        repeat: scenario.repeat,
        multi_thread: scenario.multi_thread,
        spec: None,
        case: None,
        rounds: 1,
    };
    if scenario.cases.is_empty() {
        tests.push(plain);
    }
    for (n, (case, value)) in scenario.cases.iter().enumerate() {
        let name = format!("{}::case_{}_{case}", scenario.name, n + 1);
        tests.push(Test {
            name: Box::leak(name.into()),
            case: Some(value),
            ..plain
        });
    }
}

impl Listed {
    /// Writes every test's name and code as `+listed.json` where `WORKBOOK_VERDICTS` asks for the
    /// verdicts (a `+` is in no test's name): tools read what a test plays from the list itself,
    /// never from a second reading of the specs. One that cannot be written is said on stderr.
    fn write_out(&self) {
        let Some(folder) = std::env::var_os(crate::words::reported::WRITE_TO) else {
            return;
        };
        let tests: Vec<_> = (self.tests.iter())
            .map(|t| serde_json::json!({ "name": t.name, "code": t.code }))
            .collect();
        let json = serde_json::json!({ "tests": tests }).to_string();
        let folder = std::path::Path::new(&folder);
        let written = std::fs::create_dir_all(folder)
            .and_then(|()| std::fs::write(folder.join(LISTED_FILE), json));
        if let Err(error) = written {
            eprintln!(
                "workbook: could not write the tests' list to {}: {error}",
                folder.display()
            );
        }
    }
}

/// The file, among the verdicts, that lists every test and its code.
pub const LISTED_FILE: &str = "+listed.json";

/// Runs the lesson's tests as `cargo test` runs a test binary, each against `subject` (the
/// crate's handler, on its schema), and exits as libtest would ([`Subject::tested_by`]).
pub fn main<L: Lesson, H: Handler<L::Event, Output = L::Output>>(subject: Subject<H>) -> ExitCode {
    let arguments = Arguments::from_args();
    let listed = contract::listed::<L>();
    listed.write_out();
    let trials = (listed.tests.iter())
        .map(|&test| {
            let subject = subject.clone();
            Trial::test(test.name, move || {
                run(&test, || contract::play::<L, H>(test.name, subject))
            })
        })
        .collect();
    libtest_mimic::run(&arguments, trials).exit_code()
}

/// Plays one test on a thread named after it, as libtest names a test's thread (`cargo workbook
/// trace` finds the statements a test recorded by that name), on a runtime of its own; a
/// violation is its failure, printed as libtest prints a failing `Result` (`Error: …`), and
/// written as data where `WORKBOOK_VERDICTS` asks.
fn run<K, D, F>(test: &Test, play: impl FnOnce() -> F + Send) -> Result<(), Failed>
where
    K: Explain<D> + fmt::Debug,
    F: Future<Output = Result<(), Violation<K, D>>>,
{
    std::thread::scope(|scope| {
        let named = std::thread::Builder::new().name(test.name.to_string());
        let thread = named.spawn_scoped(scope, || run_here(test, play()));
        let joined = thread
            .map_err(|e| format!("no thread for the test: {e}"))?
            .join();
        joined.unwrap_or_else(|panicked| std::panic::resume_unwind(panicked))
    })
}

fn run_here<K, D>(
    test: &Test,
    played: impl Future<Output = Result<(), Violation<K, D>>>,
) -> Result<(), Failed>
where
    K: Explain<D> + fmt::Debug,
{
    let mut runtime = match test.multi_thread {
        true => {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            builder.worker_threads(2);
            builder
        }
        false => tokio::runtime::Builder::new_current_thread(),
    };
    let runtime = (runtime.enable_all().build()).map_err(|e| format!("no runtime: {e}"))?;
    runtime.block_on(played).map_err(|violation| {
        violation.report_as(test.name);
        Failed::from(format!("Error: {violation}"))
    })
}
