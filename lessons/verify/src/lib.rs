//! The maintainers' checks, shared by `tests/verify.rs` (part of the root `cargo test`) and the
//! `repeat` command (`cargo repeat 01`): each lesson's exercise must fail for the reason the
//! lesson is about, its solution must pass, and both must run the same tests.

pub mod lesson_01;

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
}

pub const LESSONS: &[Lesson] = &[lesson_01::LESSON];

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
        let mut differing = Vec::new();
        let exercise_tests = self.exercise_dir().join("tests");
        let Ok(entries) = std::fs::read_dir(&exercise_tests) else {
            return vec![format!("{} is missing", exercise_tests.display())];
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let theirs = std::fs::read(self.solution_dir().join("tests").join(&name));
            if std::fs::read(entry.path()).ok() != theirs.ok() {
                differing.push(format!("tests/{}", name.to_string_lossy()));
            }
        }
        differing
    }
}
