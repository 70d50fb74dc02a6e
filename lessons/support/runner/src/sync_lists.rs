//! `cargo workbook sync`, for maintainers: writes what the lessons' manifests decide outside
//! their own folders, so that adding a lesson edits none of it by hand. The lists of lessons in
//! the book's contents, the README and the instructor's index (`catalog::sync`), and a new
//! lesson's shipped copy, which `reset` restores. Cargo.lock is cargo's: building this command
//! resolved the workspace, a new lesson's crates with it, and wrote it.

use std::path::Path;
use std::process::ExitCode;

use crate::catalog::{LESSONS, sync};

/// What `reset` restores of an exercise (as verify's `tests/checks/shipped.rs` keeps it).
const RESTORED: [&str; 2] = ["src", "migrations"];

pub fn sync(root: &Path) -> Result<ExitCode, String> {
    let mut wrote = 0;
    for (file, now, wanted) in sync::files(root)? {
        if now != wanted {
            let path = root.join(file);
            std::fs::write(&path, wanted).map_err(|e| format!("{}: {e}", path.display()))?;
            println!("wrote {file}");
            wrote += 1;
        }
    }
    let shipped = root.join("lessons/support/runner/shipped");
    for lesson in LESSONS {
        let copy = shipped.join(lesson.folder);
        if copy.exists() {
            // An exercise changed later is copied by verify's `shipped` check, blessed: a
            // student's edited exercise must never become what `reset` restores.
            continue;
        }
        let exercise = lesson.exercise_dir(root);
        if !exercise.join("src").is_dir() {
            // The workspace's lists come first: an exercise depends on its lesson's crate, which
            // cargo finds only once the lists name it.
            println!(
                "lesson {} has no exercises/{}/src yet: run sync again once it has, for the copy \
                 that reset restores",
                lesson.number, lesson.folder
            );
            continue;
        }
        for dir in RESTORED {
            copy_tree(&exercise.join(dir), &copy.join(dir))?;
        }
        println!(
            "wrote lessons/support/runner/shipped/{} (from exercises/)",
            lesson.folder
        );
        wrote += 1;
    }
    if wrote == 0 {
        println!("Every list of lessons already follows the manifests: nothing to write.");
    }
    Ok(ExitCode::SUCCESS)
}

/// Copies the files under `from` (if there is such a folder) to `to`.
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(());
    };
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("{}: {e}", from.display()))?
            .path();
        let target = to.join(path.file_name().expect("an entry has a name"));
        if path.is_dir() {
            copy_tree(&path, &target)?;
        } else {
            std::fs::copy(&path, &target).map_err(|e| format!("{}: {e}", target.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A checkout whose lists are stale and whose last lesson has no shipped copy yet: sync
    /// writes the lists and the copy, and a second run writes nothing.
    #[test]
    fn sync_writes_the_lists_and_a_new_lessons_shipped_copy() {
        let checkout = tempfile::tempdir().unwrap();
        let root = checkout.path();
        let write = |file: &str, text: &str| {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "book/src/SUMMARY.md",
            "# Lessons\n\n- [Old](01-old.md)\n\n---\n[Notes on lesson 01](instructor/01-old.md)\n",
        );
        write(
            "book/src/instructor/README.md",
            "- [Lesson 01](./01-old.md)\n",
        );
        write("README.md", "| # |\n|---|\n| 01 | old |\n\nafter\n");
        write(
            "Cargo.toml",
            "members = [\n    \"lessons/01-old\",\n]\ndefault-members = [\n    \"lessons/01-old\",\n]\n\
             [workspace.dependencies]\nold = { path = \"lessons/01-old\" }\n",
        );
        write(
            "lessons/support/verify/Cargo.toml",
            "# The lessons' crates:\nold.workspace = true\n",
        );
        let (last, shipped) = (LESSONS.last().unwrap(), "lessons/support/runner/shipped");
        for lesson in &LESSONS[..LESSONS.len() - 1] {
            write(
                &format!("{shipped}/{}/src/lib.rs", lesson.folder),
                "// shipped\n",
            );
        }
        write(
            &format!("exercises/{}/src/lib.rs", last.folder),
            "// the exercise\n",
        );
        write(
            &format!("exercises/{}/migrations/0001.sql", last.folder),
            "-- a table\n",
        );

        sync(root).unwrap();
        for (file, now, wanted) in sync::files(root).unwrap() {
            assert_eq!(now, wanted, "{file} is written as the manifests say");
        }
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        assert!(
            readme.starts_with("| # |\n|---|\n| 01 | `exercises/01-"),
            "{readme}"
        );
        assert!(readme.ends_with("|\n\nafter\n"), "{readme}");
        let copy = root.join(shipped).join(last.folder);
        let read = |file: &str| std::fs::read_to_string(copy.join(file)).unwrap();
        assert_eq!(read("src/lib.rs"), "// the exercise\n");
        assert_eq!(read("migrations/0001.sql"), "-- a table\n");

        let before = std::fs::read_to_string(root.join("book/src/SUMMARY.md")).unwrap();
        std::fs::write(
            root.join("exercises").join(last.folder).join("src/lib.rs"),
            "// edited\n",
        )
        .unwrap();
        sync(root).unwrap();
        assert_eq!(
            read("src/lib.rs"),
            "// the exercise\n",
            "an existing copy is never replaced"
        );
        let after = std::fs::read_to_string(root.join("book/src/SUMMARY.md")).unwrap();
        assert_eq!(before, after);
    }
}
