//! The catalog (lessons/support/catalog) is the one list of lessons; everything else that lists
//! them must agree with it: the book's table of contents and headings, the README's lessons
//! table, the workspace's members, the runner's copy of the shipped exercises, each lesson's
//! folder, and the checks' race tests.

use std::path::Path;

use catalog::LESSONS;
use verify::workspace_root;

fn read(path: &str) -> String {
    let file = workspace_root().join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

#[test]
fn the_books_table_of_contents_and_headings_follow_the_catalog() -> Result<(), String> {
    let summary = read("book/src/SUMMARY.md");
    let listed: Vec<&str> = summary
        .lines()
        .filter(|line| line.starts_with("- [") && line.contains("](0"))
        .collect();
    let expected: Vec<String> = LESSONS
        .iter()
        .map(|l| format!("- [{}]({}.md)", l.title, l.folder))
        .collect();
    if listed != expected {
        return Err(format!(
            "book/src/SUMMARY.md lists the lessons as\n{}\nbut the catalog says\n{}",
            listed.join("\n"),
            expected.join("\n")
        ));
    }
    for lesson in LESSONS {
        let chapter = read(&lesson.chapter());
        let heading = chapter.lines().next().unwrap_or_default();
        if heading != format!("# {}", lesson.title) {
            return Err(format!(
                "{} starts with {heading:?}, not the catalog's title {:?}",
                lesson.chapter(),
                lesson.title
            ));
        }
    }
    Ok(())
}

#[test]
fn the_readmes_lessons_table_follows_the_catalog() -> Result<(), String> {
    let readme = read("README.md");
    let rows: Vec<&str> = readme
        .lines()
        .filter(|line| line.starts_with("| 0") || line.starts_with("| 1"))
        .collect();
    if rows.len() != LESSONS.len() {
        return Err(format!(
            "README.md's lessons table has {} rows, the catalog {} lessons",
            rows.len(),
            LESSONS.len()
        ));
    }
    for (row, lesson) in rows.iter().zip(LESSONS) {
        let start = format!("| {} | `exercises/{}` |", lesson.number, lesson.folder);
        let end = format!("| `{}` |", lesson.chapter());
        if !row.starts_with(&start) || !row.ends_with(&end) {
            return Err(format!(
                "README.md's row {row:?} should start with {start:?} and end with {end:?}"
            ));
        }
    }
    Ok(())
}

#[test]
fn every_lesson_is_a_workspace_member_with_its_folder_and_shipped_copy() -> Result<(), String> {
    let manifest = read("Cargo.toml");
    let (members, defaults) = manifest
        .split_once("default-members")
        .ok_or("Cargo.toml has no default-members")?;
    let root = workspace_root();
    for lesson in LESSONS {
        let (exercise, solution) = (
            format!("\"exercises/{}\"", lesson.folder),
            format!("\"solutions/{}\"", lesson.folder),
        );
        if !members.contains(&exercise) || !members.contains(&solution) {
            return Err(format!(
                "Cargo.toml's members must list {exercise} and {solution}"
            ));
        }
        // Exercises are shipped broken: the root `cargo test` must not run them.
        if defaults.contains(&exercise) || !defaults.contains(&solution) {
            return Err(format!(
                "Cargo.toml's default-members must list {solution} and not {exercise}"
            ));
        }
        for file in ["exercise-tests.rs", "hints.md", "checks.rs"] {
            let path = lesson.lesson_dir(&root).join(file);
            if !path.is_file() {
                return Err(format!(
                    "lesson {} has no {}",
                    lesson.number,
                    path.display()
                ));
            }
        }
        let shipped = root
            .join("lessons/support/runner/shipped")
            .join(lesson.folder);
        if !shipped.is_dir() {
            return Err(format!(
                "the runner's copy of the shipped exercises has no {} (reset would fail)",
                shipped.display()
            ));
        }
    }
    let shipped: Vec<String> = folders(&root.join("lessons/support/runner/shipped"));
    let expected: Vec<String> = LESSONS.iter().map(|l| l.folder.to_string()).collect();
    if shipped != expected {
        return Err(format!(
            "lessons/support/runner/shipped holds {shipped:?}, the catalog {expected:?}"
        ));
    }
    Ok(())
}

#[test]
fn the_checks_cover_every_lesson_and_repeat_counts_what_the_catalog_says() -> Result<(), String> {
    let numbers: Vec<&str> = verify::LESSONS.iter().map(|l| l.number).collect();
    let expected: Vec<&str> = LESSONS.iter().map(|l| l.number).collect();
    if numbers != expected {
        return Err(format!(
            "lessons/support/verify checks lessons {numbers:?}, the catalog lists {expected:?}"
        ));
    }
    for lesson in verify::LESSONS {
        let names: Vec<String> = (lesson.probes)().into_iter().map(|p| p.name).collect();
        if names != lesson.entry().repeat {
            return Err(format!(
                "lesson {}: repeat runs {names:?}, the catalog says {:?}",
                lesson.number,
                lesson.entry().repeat
            ));
        }
    }
    Ok(())
}

fn folders(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
