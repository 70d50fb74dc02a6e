//! `--format json` end to end: the real runner on a copy of this workbook, whose lesson 01
//! exercise is in turn as shipped (it fails), the solution (it passes), code that does not
//! compile, and a handler that never returns (its test is stopped at the kit's deadline). Each
//! output is held to `results.schema.json`, as a tool reading it would hold it.
//!
//! This is cargo inside cargo, on purpose: the runner's JSON is only real when cargo ran the
//! tests. It is not in the plain `cargo test` (hence `#[ignore]`): the copy needs a build of its
//! own. Cargo names a workspace's crates by their paths inside the workspace, which a copy
//! shares, so a copy building into this checkout's target directory would overwrite this
//! checkout's own crates with the copy's, and cargo would then take them for up to date here.
//! So the copy builds into a target directory of its own (`target/workbook/results-json/`),
//! which later runs reuse; CI, whose clone builds nothing after this test, runs it last with
//! `WORKBOOK_COPY_TARGET` set to the clone's own target directory, sharing its dependencies.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn workbook() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// The workbook's sources (not its build output, not its history), copied into `folder`, a
/// file written only when it differs: cargo knows a source by its time, so each run rebuilds
/// only what changed since the last.
fn copy_of_the_workbook(folder: &Path) -> PathBuf {
    let copy = folder.join("workbook");
    // The exercise this test rewrites starts afresh: the last run left another in its place.
    let _ = std::fs::remove_dir_all(copy.join("exercises/01-check-then-act"));
    let from = workbook();
    for name in [
        ".cargo",
        "Cargo.toml",
        "Cargo.lock",
        "lessons",
        "exercises",
        "solutions",
        "migrations",
    ] {
        copy_all(&from.join(name), &copy.join(name));
    }
    copy
}

/// `from` into `to`, writing only the files whose contents differ.
fn copy_all(from: &Path, to: &Path) {
    if from.is_file() {
        if std::fs::read(from).ok() != std::fs::read(to).ok() {
            std::fs::copy(from, to).unwrap();
        }
        return;
    }
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        if entry.file_name() != "target" {
            copy_all(&entry.path(), &to.join(entry.file_name()));
        }
    }
}

/// Where this test keeps its copy, and the copy's build.
fn scratch() -> PathBuf {
    workbook().join("target/workbook/results-json")
}

/// The copy's target directory: its own, unless `WORKBOOK_COPY_TARGET` names one (see the top
/// of this file).
fn copy_target() -> PathBuf {
    std::env::var_os("WORKBOOK_COPY_TARGET")
        .map(PathBuf::from)
        .unwrap_or_else(|| scratch().join("target"))
}

/// `cargo workbook check 01 --format json` in `root`: its standard output, parsed, and its
/// standard error.
fn check_as_json(root: &Path, state: &Path, env: &[(&str, &str)]) -> (Value, String) {
    as_json(root, state, &["check", "01", "--format", "json"], env)
}

fn as_json(root: &Path, state: &Path, args: &[&str], env: &[(&str, &str)]) -> (Value, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_workbook"))
        .current_dir(root)
        .args(args)
        .env("CARGO_TARGET_DIR", copy_target())
        .env("WORKBOOK_STATE_DIR", state)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .output()
        .expect("the runner starts");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let results = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr: {stderr}"));
    (results, stderr)
}

/// `results` is what results.schema.json says the runner prints.
fn conforms(results: &Value) {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("results.schema.json");
    let mut schemas = boon::Schemas::new();
    let index = (boon::Compiler::new())
        .compile(schema.to_str().unwrap(), &mut schemas)
        .unwrap_or_else(|e| panic!("results.schema.json does not compile: {e:#}"));
    if let Err(e) = schemas.validate(results, index) {
        panic!("the runner's JSON does not fit results.schema.json: {e}\n{results:#}");
    }
}

fn tests_with(results: &Value, status: &str) -> Vec<Value> {
    let tests = results["tests"].as_array().unwrap();
    tests
        .iter()
        .filter(|t| t["status"] == status)
        .cloned()
        .collect()
}

#[test]
#[ignore = "builds a copy of the workbook; CI runs it last (.ci/run)"]
fn a_failing_a_passing_a_broken_and_a_hanging_exercise_each_print_what_the_schema_says() {
    let copy = copy_of_the_workbook(&scratch());
    let state = tempfile::tempdir().unwrap();
    let exercise = copy.join("exercises/01-check-then-act");
    let handler = exercise.join("src/lib.rs");
    let shipped = std::fs::read_to_string(&handler).unwrap();

    // As shipped: the race test fails, with its violation as the test made it.
    let (failing, stderr) = check_as_json(&copy, state.path(), &[]);
    conforms(&failing);
    assert_eq!(failing["status"], "fail", "{stderr}");
    let race = (tests_with(&failing, "fail").into_iter())
        .find(|t| t["name"] == "a_delivery_racing_an_uncommitted_one_changes_nothing")
        .expect("the race fails the shipped exercise");
    let violation = &race["violation"];
    assert_eq!(violation["kind"], "CreditedMoreThanOnce");
    assert_eq!(violation["cites"]["section"], "The race");
    let waited: Vec<&Value> = (violation["trace"].as_array().unwrap().iter())
        .filter(|step| step["waiting_on"] == serde_json::json!(["worker-1"]))
        .collect();
    assert_eq!(waited.len(), 1, "{violation:#}");
    assert!(
        violation["statements"]
            .as_array()
            .is_some_and(|s| !s.is_empty())
    );
    assert!(
        race["test_code"]
            .as_str()
            .unwrap()
            .contains("permutation lock first second commit")
    );
    assert!(!tests_with(&failing, "pass").is_empty());

    // The status, from a first run (nothing known yet): lesson 01 is next, and checked now.
    let fresh = tempfile::tempdir().unwrap();
    let (status, stderr) = as_json(&copy, fresh.path(), &["--format", "json"], &[]);
    conforms(&status);
    assert_eq!(status["next"], "01", "{stderr}");
    assert_eq!(status["lessons"][0]["exercise"], "not yet");
    assert_eq!(status["lessons"][1]["exercise"], "not checked");
    assert_eq!(status["checked"]["status"], "fail");

    // The solution: every test passes.
    copy_all(
        &workbook().join("solutions/01-check-then-act/src"),
        &exercise.join("src"),
    );
    copy_all(
        &workbook().join("solutions/01-check-then-act/migrations"),
        &exercise.join("migrations"),
    );
    let (passing, stderr) = check_as_json(&copy, state.path(), &[]);
    conforms(&passing);
    assert_eq!(passing["status"], "pass", "{stderr}");
    assert!(tests_with(&passing, "fail").is_empty());

    // Code that does not compile: an error, with the compiler's words, and no tests.
    std::fs::write(
        &handler,
        format!("{shipped}\nfn broken() -> u32 {{ \"not a number\" }}\n"),
    )
    .unwrap();
    let (broken, stderr) = check_as_json(&copy, state.path(), &[]);
    conforms(&broken);
    assert_eq!(broken["status"], "error", "{stderr}");
    assert!(
        broken["message"]
            .as_str()
            .unwrap()
            .contains("mismatched types"),
        "{broken:#}"
    );
    assert_eq!(broken["tests"], serde_json::json!([]));

    // A handler that never returns: the kit stops the test at its deadline, which the JSON
    // says as that test's error.
    let hangs = shipped.replacen(
        "-> Result<Outcome, sqlx::Error> {",
        "-> Result<Outcome, sqlx::Error> {\n    std::future::pending::<()>().await;",
        1,
    );
    assert_ne!(
        hangs, shipped,
        "the handler's signature moved: this test needs updating"
    );
    std::fs::write(&handler, hangs).unwrap();
    let (hanging, stderr) = check_as_json(&copy, state.path(), &[("WORKBOOK_TEST_DEADLINE", "5")]);
    conforms(&hanging);
    assert_eq!(hanging["status"], "error", "{stderr}");
    let stopped = tests_with(&hanging, "error");
    assert_eq!(stopped.len(), 1, "{hanging:#}");
    assert!(
        stopped[0]["message"]
            .as_str()
            .unwrap()
            .contains("did not finish within"),
        "{hanging:#}"
    );
}
