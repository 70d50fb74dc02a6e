//! The maintainers' checks, shared by `tests/verify.rs` (part of the root `cargo test`) and the
//! `repeat` command (`cargo repeat 02`): each lesson's exercise must fail for the reason the
//! lesson is about, its solution must pass, and both must run the same tests.

pub mod lesson_01;
pub mod lesson_02;
pub mod lesson_03;
pub mod lesson_04;
pub mod lesson_05;
pub mod probe;
pub mod saga;

use std::path::{Path, PathBuf};

/// The workspace root, from this crate's own location.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A lesson as the checks know it.
pub struct Lesson {
    /// Stable id: what `cargo repeat` takes, and what the book's chapter number is.
    pub id: &'static str,
    pub title: &'static str,
    /// The folder name shared by `exercises/`, `solutions/` and `lessons/`.
    pub folder: &'static str,
    /// The lesson's race and fault tests, as `cargo repeat` runs them.
    pub probes: fn() -> Vec<probe::Probe>,
}

pub const LESSONS: &[Lesson] = &[
    lesson_01::LESSON,
    lesson_02::LESSON,
    lesson_03::LESSON,
    lesson_04::LESSON,
    lesson_05::LESSON,
];

impl Lesson {
    /// Accepts `01`, `1` or the folder name.
    pub fn find(name: &str) -> Option<&'static Lesson> {
        let number = name.parse::<u32>().ok();
        LESSONS.iter().find(|lesson| {
            lesson.folder == name || number.is_some_and(|n| lesson.id.parse() == Ok(n))
        })
    }

    pub fn exercise_dir(&self) -> PathBuf {
        workspace_root().join("exercises").join(self.folder)
    }

    pub fn solution_dir(&self) -> PathBuf {
        workspace_root().join("solutions").join(self.folder)
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
                self.folder,
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
