//! A lesson's `tests.list`, as the build scripts read it: the tests it names (a spec's every
//! permutation, one picked and renamed, several made one test with cases, a crate shared with
//! other lessons), what `cargo repeat` counts, and each line a maintainer gets wrong, refused
//! with its file and line.

#[path = "../../build/tests_list.rs"]
mod list;

use std::path::{Path, PathBuf};

use list::{Listed, Plays};

const SPEC: &str = "\
session w
step d deliver {}
permutation d
test races
story \"raced\"
expect exercise Broken
permutation d
test waits
story \"waited\"
expect exercise holds
";

/// A lessons/ folder holding `lesson` (its tests.list) and `crate` (its specs/race.spec).
fn lessons(lesson: &str, list: &str, crate_folder: &str) -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let specs = root.path().join(crate_folder).join("specs");
    std::fs::create_dir_all(&specs).unwrap();
    std::fs::write(specs.join("race.spec"), SPEC).unwrap();
    let dir = root.path().join(lesson);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("tests.list"), list).unwrap();
    (root, dir)
}

fn read(list: &str) -> Result<Vec<Listed>, String> {
    let (_root, dir) = lessons("02-x", list, "02-x");
    list::read(&dir)
}

fn names(listed: &[Listed]) -> Vec<String> {
    listed.iter().flat_map(Listed::names).collect()
}

#[test]
fn a_spec_stands_for_its_permutations_and_repeats_the_ones_the_exercise_loses() {
    let listed = read("# comment\n\nspec race.spec\n").unwrap();
    assert_eq!(names(&listed), ["races", "waits"]);
    let repeat: Vec<bool> = listed.iter().map(|test| test.repeat).collect();
    assert_eq!(repeat, [true, false]);
}

#[test]
fn one_permutation_is_picked_renamed_and_marked() {
    let listed = read("spec race.spec waits as waits_its_turn repeat\n").unwrap();
    assert_eq!(names(&listed), ["waits_its_turn"]);
    assert!(listed[0].repeat);
    // Renamed for the lesson, played by the permutation the spec names.
    assert!(matches!(&listed[0].plays, Plays::Spec { test, .. } if test == "waits"));
}

#[test]
fn several_permutations_make_one_test_with_a_case_each() {
    let listed = read("spec race.spec as one_test cases first=races second=waits\n").unwrap();
    assert_eq!(
        names(&listed),
        ["one_test::case_1_first", "one_test::case_2_second"]
    );
    let written = list::generate(&listed, "lessons/02-x/tests.list");
    assert!(written.contains("(\"race.spec\", \"races\"),"), "{written}");
    assert!(written.contains("spec_test($crate::subject!"), "{written}");
}

#[test]
fn a_lesson_plays_the_specs_of_the_crate_its_list_names() {
    let (_root, dir) = lessons("03-y", "crate shared\nspec race.spec races\n", "shared");
    assert_eq!(list::crate_folder(&dir).unwrap(), "shared");
    let listed = list::read(&dir).unwrap();
    assert_eq!(names(&listed), ["races"]);
    let written = list::generate_shared(&[("03".into(), listed, "lessons/03-y/tests.list".into())]);
    assert!(
        written.contains("(lesson_03, $($handler:tt)+)"),
        "{written}"
    );
    assert!(written.contains("pub mod lesson_03 {"), "{written}");
}

#[test]
fn a_line_that_makes_no_sense_is_refused_with_its_line() {
    for (list, says) in [
        (
            "spec race.spec gone\n",
            "tests.list:1: specs/race.spec has no permutation `test gone`",
        ),
        (
            "\nspec race.spec races as\n",
            "tests.list:2: after `spec FILE TEST`: `[as NAME] [repeat]`",
        ),
        (
            "spec race.spec as one cases first\n",
            "tests.list:1: a case is CASE=TEST, not `first`",
        ),
        (
            "spec race.spec as one cases first=gone\n",
            "tests.list:1: specs/race.spec has no permutation `test gone`",
        ),
        ("rust name\n", "tests.list:1: expected `crate FOLDER`"),
        (
            "rust name function quickly\n",
            "tests.list:1: `quickly` is not `repeat`, `multi_thread` or `cases`",
        ),
    ] {
        let refused = read(list)
            .err()
            .unwrap_or_else(|| panic!("{list:?} was read"));
        assert!(refused.contains(says), "{list:?}: {refused}");
    }
}

#[test]
fn a_missing_spec_is_refused_with_its_path() {
    let refused = read("spec gone.spec\n").err().unwrap();
    assert!(refused.contains(&Path::new("specs").join("gone.spec").display().to_string()));
}
