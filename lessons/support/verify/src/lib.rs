//! The maintainers' checks: each lesson's `checks.rs` (in the lesson's folder, included below)
//! says what its shipped exercise must fail with and which race tests `repeat` counts, and its
//! unit tests check it (part of the root `cargo test`). `tests/` checks that everything listing
//! the lessons agrees with the catalog, and that every book include finds its anchor.

pub mod breaking;
pub mod citations;
pub mod diagram;
#[cfg(test)]
pub mod intended;
// Each lesson's intended-failure checks live in the lesson's own folder, as `checks.rs`;
// build.rs declares one module per file (`lesson_NN`) and lists them in `LESSONS`.
include!(concat!(env!("OUT_DIR"), "/lessons.rs"));
pub mod lesson_checks;
pub mod probe;
pub mod saga;
pub mod wrong_fix;

/// Every lesson's wrong fixes, read from `lessons/*/wrong-fixes/*.patch` by build.rs: the
/// catalogue. The patched handlers are compiled into `tests/wrong_fixes.rs`.
pub mod wrong_fixes {
    /// A lesson's wrong fix by its file name (without `.patch`).
    pub fn by_name(lesson: &str, name: &str) -> &'static WrongFix {
        WRONG_FIXES
            .iter()
            .find(|fix| fix.lesson == lesson && fix.name == name)
            .expect("generated from the same list")
    }

    include!(concat!(env!("OUT_DIR"), "/wrong_fixes.rs"));
}

use std::path::{Path, PathBuf};

/// The workspace root, from this crate's own location.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// A lesson as the checks know it: its catalog entry, and its race and fault tests.
pub struct Lesson {
    /// The lesson's number in the catalog (lessons/support/catalog).
    pub number: &'static str,
    /// Every test of the lesson, by the name `cargo test` prints (a parametrised test once per
    /// case), in its list's order: what the book's counts of tests are checked against.
    pub tests: fn() -> &'static [&'static str],
    /// The shipped permutation a test plays, if a spec plays it: the spec's file, and the test
    /// its `test` line names.
    pub spec_of: fn(&str) -> Option<(&'static str, &'static str)>,
    /// The lesson's race and fault tests, as `cargo repeat` runs them.
    pub probes: fn() -> Vec<probe::Probe>,
}

impl Lesson {
    /// Accepts what the catalog accepts: `01`, `1`, the key or the folder name.
    pub fn find(name: &str) -> Result<&'static Lesson, String> {
        let entry = catalog::find(name)?;
        LESSONS
            .iter()
            .find(|lesson| lesson.number == entry.number)
            .ok_or_else(|| {
                format!(
                    "lesson {} has no checks in lessons/support/verify",
                    entry.number
                )
            })
    }

    /// The catalog's entry: title, folder, packages.
    pub fn entry(&self) -> &'static catalog::Lesson {
        catalog::find(self.number).expect("every lesson with checks is in the catalog")
    }

    pub fn exercise_dir(&self) -> PathBuf {
        self.entry().exercise_dir(&workspace_root())
    }

    pub fn solution_dir(&self) -> PathBuf {
        self.entry().solution_dir(&workspace_root())
    }

    /// The students run the exercise's tests and the instructors the solution's: they must be
    /// the same file, or a solution could pass tests the exercise never has to. Both crates
    /// name one `[[test]]` file, and neither may have a `tests/` folder of its own (cargo would
    /// run it on one side only). Returns what is wrong, if anything.
    pub fn test_file_mismatch(&self) -> Option<String> {
        let (ours, theirs) = (self.exercise_dir(), self.solution_dir());
        let (mine, yours) = (test_path(&ours), test_path(&theirs));
        let Some(path) = mine.clone().filter(|_| mine == yours) else {
            let named = |path: &Option<String>| path.clone().unwrap_or_else(|| "none".into());
            return Some(format!(
                "exercises/{0}/Cargo.toml names the test file {1}, solutions/{0}/Cargo.toml \
                 names {2}; both must name the same [[test]] path",
                self.entry().folder,
                named(&mine),
                named(&yours)
            ));
        };
        if !ours.join(&path).is_file() {
            return Some(format!("the test file {path} does not exist"));
        }
        for dir in [&ours, &theirs] {
            if dir.join("tests").exists() {
                return Some(format!(
                    "{} has a tests/ folder, which only one side would run",
                    dir.display()
                ));
            }
        }
        None
    }
}

/// The `path` of the `[[test]]` section in `crate_dir/Cargo.toml`.
fn test_path(crate_dir: &Path) -> Option<String> {
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).ok()?;
    let (_, section) = manifest.split_once("[[test]]")?;
    section.lines().find_map(|line| {
        let value = line.trim().strip_prefix("path")?.trim().strip_prefix('=')?;
        Some(value.trim().trim_matches('"').to_string())
    })
}
