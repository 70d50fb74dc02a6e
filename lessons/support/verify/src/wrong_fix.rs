//! Wrong fixes as executable fixtures. Each lesson keeps, in `lessons/NN-key/wrong-fixes/`, the
//! fixes students really write: small patches against the solution (or the exercise), each with
//! the story of the student who would write it and what the lesson's suite must do with it.
//! build.rs compiles every patched handler into this crate; [`check`] runs the lesson's suite
//! against one (all of it, or until it is decided: see [`Sweep`]) and holds it to its
//! expectation:
//!
//! - *caught*: at least one scenario fails, every failing scenario fails with an expected kind
//!   of violation (a wrong fix caught for another reason teaches the wrong lesson), and every
//!   such message contains the expected words (the message a student then reads names the real
//!   mistake);
//! - *equivalent*: a different but correct fix passes every scenario (a suite that fails a
//!   correct fix pins implementation, not behaviour).

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use kit::Explain;

/// What the suite must do with a wrong fix.
#[derive(Debug)]
pub enum Expect {
    Equivalent,
    Caught {
        kinds: &'static [&'static str],
        words: &'static [&'static str],
        /// The test that catches it, as its header's `caught-by:` names it, if it does. The
        /// quick sweep plays only that one; the full sweep checks that it fails it.
        by: Option<&'static str>,
        /// Every test it fails, as its header's `fails:` lists them, if it does: the book
        /// counts them (`<!-- count: fails NAME -->`), and the full sweep checks the list.
        fails: Option<&'static [&'static str]>,
    },
}

/// The lesson's suite run against one patched handler: the scenarios that failed.
pub type Run = fn() -> Pin<Box<dyn Future<Output = Vec<Failed>>>>;

/// One entry of a lesson's catalogue of wrong fixes (generated from its `.patch` file). Its
/// patched handler, and the [`Run`] of the lesson's suite against it, are compiled into
/// `tests/wrong_fixes.rs`.
pub struct WrongFix {
    pub lesson: &'static str,
    pub name: &'static str,
    /// The `.patch` file, from the workspace root.
    pub file: &'static str,
    /// The student who would write it, in one line.
    pub story: &'static str,
    pub expect: Expect,
}

/// A scenario that failed: which, with which kind of violation, and the message a student reads.
#[derive(Debug)]
pub struct Failed {
    pub scenario: &'static str,
    pub kind: String,
    pub message: String,
}

/// How deep [`check`] goes. The root `cargo test` runs the quick sweep: a wrong fix is proven
/// caught for its reason by the first scenario that fails it, and a correct one passes every
/// scenario with one barrier round a size. `cargo workbook verify` (and CI) runs the full one:
/// every entry against every scenario and every barrier round a student's run meets, and every
/// failing scenario held to the entry's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sweep {
    Quick,
    Full,
}

/// Set to `full` by `cargo workbook verify`: see [`Sweep`].
pub const SWEEP_VAR: &str = "WORKBOOK_SWEEP";

impl Sweep {
    pub fn from_env() -> Sweep {
        match std::env::var(SWEEP_VAR).as_deref() {
            Ok("full") => Sweep::Full,
            _ => Sweep::Quick,
        }
    }
}

/// How [`run_tests`] plays a suite in the quick sweep.
#[derive(Debug, Clone, Copy)]
struct Quick {
    /// Only this test, when the entry's header names it (`caught-by:`); else all.
    only: Option<&'static str>,
}

tokio::task_local! {
    /// Set by [`check`] for the quick sweep: [`run_tests`] stops at the first failure.
    static QUICK: Quick;
}

/// A barrier test, known by its name as `cargo repeat --skip` knows it.
fn is_barrier(test: &str) -> bool {
    test.contains("released_together")
}

/// Runs the tests of a lesson's `exercise-tests.rs`, each on a database of its own, several at
/// once (so that a wrong fix whose every test waits out the pool's timeout costs one timeout):
/// `tests`, as its list names them; `play`, its generated `play` with the subject
/// under check. Returns those that failed, by the names `cargo test` prints.
///
/// In the full sweep, every test runs. In the quick one, the first failure ends the run: the
/// tests still running are dropped, their databases with them (the kit's keeper drops a
/// database whose test stopped waiting for it). The scripted, fault and sequential tests go
/// first, all at once, and the barrier tests only if none of those failed: a barrier's rounds
/// are most of a suite's time, and all but one wrong fix of the catalogue are caught by a script.
/// An entry whose header says which test catches it plays only that one.
pub async fn run_tests<K, D, Fut>(
    tests: &'static [&'static str],
    play: impl Fn(&'static str) -> Fut,
) -> Vec<Failed>
where
    K: Explain<D> + fmt::Debug,
    Fut: Future<Output = Result<(), kit::Violation<K, D>>>,
{
    let quick = QUICK.try_with(|quick| *quick).ok();
    let mut failed = Vec::new();
    let Some(Quick { only }) = quick else {
        let runs = futures_util::future::join_all(tests.iter().map(|&name| play(name)));
        let results = kit::in_the_checks(runs).await;
        for (&name, result) in tests.iter().zip(results) {
            record(&mut failed, name, result);
        }
        return failed;
    };
    if let Some(only) = only {
        assert!(
            tests.contains(&only),
            "the wrong fix's `caught-by:` names {only}, which is not a test of its lesson (name \
             it as `cargo test` prints it)"
        );
    }
    let chosen = tests
        .iter()
        .copied()
        .filter(|name| only.is_none_or(|only| only == *name));
    let (barriers, scripted): (Vec<&'static str>, Vec<&'static str>) =
        chosen.partition(|name| is_barrier(name));
    for group in [scripted, barriers] {
        let mut running: FuturesUnordered<_> = group
            .into_iter()
            .map(|name| {
                let run = play(name);
                async move { (name, run.await) }
            })
            .collect();
        while let Some((name, result)) = kit::in_the_checks(running.next()).await {
            record(&mut failed, name, result);
            if !failed.is_empty() {
                return failed;
            }
        }
    }
    failed
}

/// Notes a scenario's result for [`check`].
fn record<K: Explain<D> + fmt::Debug, D>(
    failed: &mut Vec<Failed>,
    scenario: &'static str,
    result: Result<(), kit::Violation<K, D>>,
) {
    if let Err(violation) = result {
        failed.push(Failed {
            scenario,
            kind: violation.kind.name(),
            message: violation.to_string(),
        });
    }
}

/// A check's complaint, printed as written when a test fails (a `String` error would be printed
/// escaped, on one line).
pub struct Complaint(pub String);

impl fmt::Debug for Complaint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for Complaint {
    fn from(text: String) -> Self {
        Complaint(text)
    }
}

/// Runs the lesson's suite against `fix` (`run`) and holds the result to the fix's expectation,
/// as deep as `sweep` goes.
pub async fn check(fix: &WrongFix, run: Run, sweep: Sweep) -> Result<(), Complaint> {
    let failed = match (sweep, &fix.expect) {
        (Sweep::Full, _) => run().await,
        (Sweep::Quick, Expect::Equivalent) => {
            let quick = Quick { only: None };
            QUICK.scope(quick, kit::with_one_round(run())).await
        }
        (Sweep::Quick, Expect::Caught { by, .. }) => QUICK.scope(Quick { only: *by }, run()).await,
    };
    let about = format!("{} ({})", fix.file, fix.story);
    match fix.expect {
        Expect::Equivalent => match failed.first() {
            None => Ok(()),
            Some(first) => Err(Complaint(format!(
                "{about}: a correct fix, but the suite fails it in {}: {}\nA suite that fails a \
                 correct fix pins the implementation, not the behaviour.",
                first.scenario, first.message
            ))),
        },
        Expect::Caught {
            kinds,
            words,
            by,
            fails,
        } => {
            if failed.is_empty() && by.is_none() {
                return Err(Complaint(format!(
                    "{about}: a wrong fix, and every scenario of the lesson lets it through"
                )));
            }
            // Its header says which test catches it: that one must fail it (the quick sweep
            // plays only that one, the full sweep all).
            if let Some(passed) = by.filter(|by| !failed.iter().any(|f| f.scenario == *by)) {
                return Err(Complaint(format!(
                    "{about}: its header says {passed} catches it (caught-by), but {passed} \
                     passed it"
                )));
            }
            for f in &failed {
                if !kinds.contains(&f.kind.as_str()) {
                    return Err(Complaint(format!(
                        "{about}: caught for another reason: {} failed with {} (expected {}):\n{}",
                        f.scenario,
                        f.kind,
                        kinds.join(" or "),
                        f.message
                    )));
                }
                if let Some(missing) = words.iter().find(|w| !f.message.contains(**w)) {
                    return Err(Complaint(format!(
                        "{about}: caught, but the message of {} lacks {missing:?}:\n{}",
                        f.scenario, f.message
                    )));
                }
            }
            // Only the full sweep plays every test, so only it can hold the list.
            if let Some(listed) = fails.filter(|_| sweep == Sweep::Full) {
                let mut seen: Vec<&str> = failed.iter().map(|f| f.scenario).collect();
                let mut listed = listed.to_vec();
                seen.sort_unstable();
                listed.sort_unstable();
                if seen != listed {
                    return Err(Complaint(format!(
                        "{about}: its header's `fails:` lists {listed:?}, but the suite failed \
                         it in {seen:?}: the book counts that list, so correct it"
                    )));
                }
            }
            Ok(())
        }
    }
}

/// The table of a lesson's wrong fixes in its instructor's notes, one row per catalogue entry:
/// the book shows what the suite is proved to do with each, and `tests/checks/book.rs` fails when the
/// table and the catalogue disagree.
pub fn catalogue_table(fixes: &[&WrongFix]) -> String {
    let mut table = String::from("| Entry | The student | What the suite does |\n|---|---|---|\n");
    for fix in fixes {
        let student = fix
            .story
            .strip_prefix("a student who ")
            .unwrap_or(fix.story);
        let verdict = match fix.expect {
            Expect::Equivalent => "passes it: a correct fix".to_string(),
            // A half-way fix that several scenarios catch, each for its own reason, is
            // expected by its kinds alone: no one sentence is in every message.
            Expect::Caught {
                kinds, words: [], ..
            } => format!("fails it with {}", kinds.join(" or ")),
            Expect::Caught { kinds, words, .. } => {
                let quoted: Vec<String> = words.iter().map(|w| format!("“{w}”")).collect();
                format!(
                    "fails it with {}, saying {}",
                    kinds.join(" or "),
                    quoted.join(", ")
                )
            }
        };
        table.push_str(&format!("| `{}` | {student} | {verdict} |\n", fix.name));
    }
    table
}
