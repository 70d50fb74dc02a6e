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

    /// The students run the exercise's test file and the instructors the solution's: they must
    /// be the same file, or a solution could pass tests the exercise never has to.
    pub fn test_files_differ(&self) -> Vec<String> {
        let (ours, theirs) = (self.exercise_dir(), self.solution_dir());
        let mut files = files_under(&ours, Path::new("tests"));
        files.extend(files_under(&theirs, Path::new("tests")));
        files.sort();
        files.dedup();
        if files.is_empty() {
            return vec!["tests/ (missing or empty in both)".into()];
        }
        files
            .into_iter()
            .filter(|file| {
                std::fs::read(ours.join(file)).ok() != std::fs::read(theirs.join(file)).ok()
            })
            .map(|file| file.display().to_string())
            .collect()
    }
}

/// Every file below `root/dir`, as a path relative to `root`.
fn files_under(root: &Path, dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root.join(dir))
        .into_iter()
        .flatten()
        .flatten()
    {
        let relative = dir.join(entry.file_name());
        if entry.path().is_dir() {
            files.extend(files_under(root, &relative));
        } else {
            files.push(relative);
        }
    }
    files
}
