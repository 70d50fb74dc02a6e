//! The build script of every lesson crate on the engine (its `Cargo.toml` says `build =
//! "../support/kit/build/lesson.rs"`): writes the lesson's tests from its list (`tests.list`)
//! and the specs it names, as tests_list.rs describes. A crate several lessons share (the order
//! saga's) has no list of its own: it writes the tests of every lesson folder whose list names
//! it (`crate order-saga`).

#[path = "tests_list.rs"]
mod tests_list;

use std::path::{Path, PathBuf};

fn main() {
    let lesson = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let folder = folder_of(&lesson);
    println!("cargo:rerun-if-changed=specs");
    let code = if lesson.join("tests.list").is_file() {
        println!("cargo:rerun-if-changed=tests.list");
        let listed = tests_list::read(&lesson).unwrap_or_else(|e| panic!("{e}"));
        tests_list::generate(&listed, &format!("lessons/{folder}/tests.list"))
    } else {
        tests_list::generate_shared(&sharing(&lesson, &folder))
    };
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("listed.rs"), code).expect("OUT_DIR is writable");
}

/// Each lesson whose list names the crate in `folder`: its number, its tests, its list's path.
fn sharing(lesson: &Path, folder: &str) -> Vec<(String, Vec<tests_list::Listed>, String)> {
    let mut lessons: Vec<PathBuf> = std::fs::read_dir(lesson.join(".."))
        .expect("lessons/ is readable")
        .map(|entry| entry.expect("lessons/ is readable").path())
        .filter(|dir| dir.join("tests.list").is_file())
        .collect();
    lessons.sort();
    let mut sharing = Vec::new();
    for dir in lessons {
        let list = dir.join("tests.list");
        println!("cargo:rerun-if-changed={}", list.display());
        if tests_list::crate_folder(&dir).unwrap_or_else(|e| panic!("{e}")) != folder {
            continue;
        }
        let listed = tests_list::read(&dir).unwrap_or_else(|e| panic!("{e}"));
        let name = folder_of(&dir);
        sharing.push((
            name[..2].to_string(),
            listed,
            format!("lessons/{name}/tests.list"),
        ));
    }
    assert!(
        !sharing.is_empty(),
        "no lesson's tests.list says `crate {folder}`"
    );
    sharing
}

fn folder_of(dir: &Path) -> String {
    let name = dir.file_name().expect("a lesson's folder");
    name.to_string_lossy().into_owned()
}
