//! The runner's commands end to end: the real binary, its real output (no colours: the output
//! is not a terminal), snapshotted. Nothing here runs an exercise's tests, which would mean
//! cargo inside cargo; those paths are covered by the unit tests of how a verdict is read.

use std::path::Path;
use std::process::Command;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn workbook(state: &tempfile::TempDir, args: &[&str]) -> Run {
    workbook_in(Path::new(env!("CARGO_MANIFEST_DIR")), state, args)
}

/// The runner, run from `dir` as a student's shell would.
fn workbook_in(dir: &Path, state: &tempfile::TempDir, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_workbook"))
        .current_dir(dir)
        .args(args)
        .env("WORKBOOK_STATE_DIR", state.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("the runner starts");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn an_unknown_lesson_is_refused_with_the_list_of_lessons() {
    let state = tempfile::tempdir().unwrap();
    for command in [
        "check", "hint", "diff", "solution", "repeat", "deliver", "serve",
    ] {
        let run = workbook(&state, &[command, "99"]);
        assert_eq!(run.code, 2, "{command}: {}", run.stderr);
        // Every lesson, by number and key: written here from the catalog, so that a new lesson
        // changes no snapshot.
        let every: Vec<String> = (catalog::LESSONS.iter())
            .map(|l| format!("{} ({})", l.number, l.key))
            .collect();
        let every = format!("The lessons are: {}.", every.join(", "));
        assert!(run.stderr.contains(&every), "{command}: {}", run.stderr);
        let shown = run.stderr.replace(
            &every,
            "The lessons are: [every lesson, by number and key].",
        );
        insta::assert_snapshot!("unknown_lesson", shown);
    }
}

/// Only a lesson whose handler sits behind an HTTP API can be served; the others are told what
/// takes their events, before anything is built.
#[test]
fn serve_refuses_a_lesson_without_an_api_and_names_deliver() {
    let state = tempfile::tempdir().unwrap();
    let run = workbook(&state, &["serve", "05"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("lesson 05 has no HTTP API to serve")
            && run.stderr.contains("cargo workbook deliver 05"),
        "{}",
        run.stderr
    );
}

#[test]
fn hints_come_one_stage_at_a_time_and_stop_at_the_last() {
    let state = tempfile::tempdir().unwrap();
    let shown: Vec<String> = (0..4)
        .map(|_| workbook(&state, &["hint", "04"]).stdout)
        .collect();
    insta::assert_snapshot!("hint_04_first", shown[0]);
    assert!(shown[1].starts_with("Hint 2 of 3"), "{}", shown[1]);
    assert!(shown[2].starts_with("Hint 3 of 3"), "{}", shown[2]);
    assert_eq!(
        shown[3], shown[2],
        "after the last hint, the last hint again"
    );
}

#[test]
fn progress_is_kept_by_lesson_key_not_by_number() {
    let state = tempfile::tempdir().unwrap();
    workbook(&state, &["hint", "1"]);
    let saved = std::fs::read_to_string(state.path().join("workbook-progress.json")).unwrap();
    assert!(saved.contains("\"check-then-act\""), "{saved}");
    let second = workbook(&state, &["hint", "check-then-act"]);
    assert!(
        second.stdout.starts_with("Hint 2 of 3"),
        "{}",
        second.stdout
    );
}

/// On a checkout that holds lesson 04 as shipped (the runner's copy, whatever a student has done
/// to exercises/), beside its solution.
#[test]
fn diff_with_force_shows_only_the_fix_and_the_package_name() {
    let state = tempfile::tempdir().unwrap();
    let checkout = tempfile::tempdir().unwrap();
    let (root, real) = (
        checkout.path(),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.."),
    );
    let folder = "04-for-update";
    std::fs::write(root.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
    std::fs::create_dir_all(root.join("lessons")).unwrap();
    copy_dir(
        &real.join("solutions").join(folder),
        &root.join("solutions").join(folder),
    );
    let exercise = root.join("exercises").join(folder);
    copy_dir(
        &real.join("lessons/support/runner/shipped").join(folder),
        &exercise,
    );
    // The manifest is not part of the shipped copy: a student has no reason to edit it.
    let manifest = real.join("exercises").join(folder).join("Cargo.toml");
    std::fs::copy(manifest, exercise.join("Cargo.toml")).unwrap();
    let run = workbook_in(root, &state, &["diff", "04", "--force"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!("diff_04", run.stdout);
}

/// `from` copied to `to`, leaving out build output.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (path, name) = (entry.path(), entry.file_name());
        if name == "target" {
            continue;
        }
        if path.is_dir() {
            copy_dir(&path, &to.join(name));
        } else {
            std::fs::copy(&path, to.join(name)).unwrap();
        }
    }
}

#[test]
fn solution_with_force_prints_the_handler_and_not_the_tests() {
    let state = tempfile::tempdir().unwrap();
    let run = workbook(&state, &["solution", "01", "--force"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("// solutions/01-check-then-act/src/lib.rs")
    );
    assert!(
        run.stdout
            .contains("migrations/0100_processed_events_key.sql")
    );
    assert!(!run.stdout.contains("tests/lesson.rs"));
}

#[test]
fn an_unknown_subcommand_gets_clap_s_message_and_the_usage() {
    let state = tempfile::tempdir().unwrap();
    let run = workbook(&state, &["chekc", "01"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("unrecognized subcommand 'chekc'"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("check"), "{}", run.stderr);
}

/// The runner works on the checkout it is run in, found at run time: not on the one it was
/// built in, which a moved or copied checkout would otherwise read and write.
#[test]
fn a_copied_checkout_is_worked_on_not_the_one_the_runner_was_built_in() {
    let state = tempfile::tempdir().unwrap();
    let copy = tempfile::tempdir().unwrap();
    let root = copy.path();
    std::fs::write(root.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
    std::fs::create_dir_all(root.join("exercises")).unwrap();
    let lesson = root.join("lessons/01-check-then-act");
    std::fs::create_dir_all(&lesson).unwrap();
    std::fs::write(
        lesson.join("hints.md"),
        "# Hints\n\n## Only in the copy\nThis hint exists in the copied checkout alone.\n",
    )
    .unwrap();

    let run = workbook_in(root, &state, &["hint", "01"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("This hint exists in the copied checkout alone."),
        "{}",
        run.stdout
    );
}

#[test]
fn outside_the_workbook_the_runner_says_where_to_run_it() {
    let state = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let run = workbook_in(elsewhere.path(), &state, &["status"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("is not inside the workbook"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_garbage_progress_file_is_said_once_and_kept_aside() {
    let state = tempfile::tempdir().unwrap();
    let file = state.path().join("workbook-progress.json");
    std::fs::write(&file, "{ not json").unwrap();

    let first = workbook(&state, &["hint", "01"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stderr.contains("is not valid"), "{}", first.stderr);
    assert!(first.stdout.starts_with("Hint 1 of"), "{}", first.stdout);
    assert_eq!(
        std::fs::read_to_string(state.path().join("workbook-progress.json.unreadable")).unwrap(),
        "{ not json"
    );

    let second = workbook(&state, &["hint", "01"]);
    assert!(!second.stderr.contains("is not valid"), "{}", second.stderr);
    assert!(second.stdout.starts_with("Hint 2 of"), "{}", second.stdout);
}

#[test]
fn runs_below_one_are_refused_in_one_format_with_one_exit_code() {
    let state = tempfile::tempdir().unwrap();
    for runs in ["-1", "0", "many"] {
        let run = workbook(&state, &["repeat", "01", "--runs", runs]);
        assert_eq!(run.code, 2, "--runs {runs}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!(
                "--runs takes a whole number of at least 1, not \"{runs}\""
            )),
            "--runs {runs}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("-- -1"), "{}", run.stderr);
    }
}

/// JSON is for the verdicts only; any other command asked for it says so, prints nothing on
/// standard output (a tool would try to read it), and exits as for any bad input.
#[test]
fn json_is_refused_for_commands_that_print_no_verdict() {
    let state = tempfile::tempdir().unwrap();
    let run = workbook(&state, &["hint", "01", "--format", "json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("--format json is for `cargo workbook check NN`"),
        "{}",
        run.stderr
    );
}
