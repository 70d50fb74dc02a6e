//! What a student may change, and what they changed besides. A lesson's handler and its
//! migrations (`exercises/NN-key/src/`, `…/migrations/`) are theirs to write; every other file
//! is the workbook's, and the report runs the workbook's own copy of it. A checkout that changed
//! one anyway (an edited test, an added `build.rs`, a `.cargo/config.toml` that wraps rustc) is
//! either cheating its verdict or running code at build time that no exercise asked for, so it
//! is not run unless the teacher trusts it: this report is not a sandbox.

use std::path::{Path, PathBuf};

use crate::catalog::LESSONS;
use crate::class::tree::{self, Files};

/// A file outside the student's own, and how it differs from the teacher's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: PathBuf,
    pub how: &'static str,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.path.display(), self.how)
    }
}

/// The student's files that are not theirs to write and are not the teacher's: changed,
/// added, or links. A file the student deleted is not listed: the report runs the teacher's.
pub fn changes(teacher: &Files, student: &Files) -> Vec<Change> {
    let mut changes = Vec::new();
    for (path, theirs) in student {
        if is_the_students(path) {
            if tree::is_link(theirs) {
                changes.push(Change {
                    path: path.clone(),
                    how: "a symbolic link",
                });
            }
            continue;
        }
        let how = match teacher.get(path) {
            _ if tree::is_link(theirs) => Some("a symbolic link"),
            None => Some("added"),
            Some(ours) => match (std::fs::read(ours), std::fs::read(theirs)) {
                (Ok(ours), Ok(theirs)) if tree::same_text(&ours, &theirs) => None,
                (Ok(_), Ok(_)) => Some("changed"),
                _ => Some("unreadable"),
            },
        };
        if let Some(how) = how {
            changes.push(Change {
                path: path.clone(),
                how,
            });
        }
    }
    changes
}

/// `exercises/NN-key/src/…` and `exercises/NN-key/migrations/…`, for a lesson in the catalog.
pub fn is_the_students(path: &Path) -> bool {
    let mut parts = path.components().map(|c| c.as_os_str().to_string_lossy());
    let (Some(top), Some(folder), Some(kind), Some(_)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    top == "exercises"
        && LESSONS.iter().any(|l| l.folder == folder)
        && (kind == "src" || kind == "migrations")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Files) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let at = dir.path().join(path);
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::fs::write(at, text).unwrap();
        }
        let listed = tree::files(dir.path(), &[]).unwrap();
        (dir, listed)
    }

    #[test]
    fn a_handler_is_the_students_but_a_test_a_manifest_and_a_build_script_are_not() {
        let lesson = "exercises/01-check-then-act";
        let (_t, teacher) = tree_of(&[
            ("lessons/01-check-then-act/exercise-tests.rs", "assert!(x)"),
            (&format!("{lesson}/Cargo.toml"), "[package]"),
            (&format!("{lesson}/src/lib.rs"), "shipped"),
            ("README.md", "read me\n"),
        ]);
        let (_s, student) = tree_of(&[
            (
                "lessons/01-check-then-act/exercise-tests.rs",
                "// assert!(x)",
            ),
            (&format!("{lesson}/Cargo.toml"), "[package]"),
            (&format!("{lesson}/build.rs"), "fn main() {}"),
            (&format!("{lesson}/src/lib.rs"), "my fix"),
            (&format!("{lesson}/src/extra.rs"), "mine too"),
            ("exercises/99-mine/src/lib.rs", "not a lesson"),
            ("README.md", "read me\r\n"),
        ]);
        let said: Vec<String> = changes(&teacher, &student)
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(
            said,
            vec![
                "exercises/01-check-then-act/build.rs (added)",
                "exercises/99-mine/src/lib.rs (added)",
                "lessons/01-check-then-act/exercise-tests.rs (changed)",
            ]
        );
    }
}
