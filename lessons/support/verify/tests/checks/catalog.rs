//! The catalog (lessons/support/catalog, built from the lessons' manifests) is the one list of
//! lessons; everything else that lists them must agree with it: the lists `cargo workbook sync`
//! writes (the book's table of contents, the README's lessons table, the instructor's index),
//! the chapters' headings, the workspace's members, the runner's copy of the shipped exercises,
//! each lesson's folder, and the checks' race tests.

use std::path::Path;

use catalog::LESSONS;
use verify::workspace_root;

/// A test's complaint, printed as written (a `String` error would print escaped).
struct Mismatch(String);

impl std::fmt::Debug for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for Mismatch {
    fn from(text: String) -> Self {
        Mismatch(text)
    }
}

impl From<&str> for Mismatch {
    fn from(text: &str) -> Self {
        Mismatch(text.to_string())
    }
}

fn read(path: &str) -> String {
    let file = workspace_root().join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// The lists of lessons in the book's contents, the README and the instructor's index are
/// written from the manifests by `cargo workbook sync`: a list edited by hand, or a manifest
/// changed without it, is drift.
#[test]
fn every_list_of_lessons_is_as_cargo_workbook_sync_writes_it() -> Result<(), Mismatch> {
    let root = workspace_root();
    for (file, now, wanted) in catalog::sync::files(&root)? {
        if now != wanted {
            let gone = (now.lines()).filter(|line| !wanted.lines().any(|w| w == *line));
            let new = (wanted.lines()).filter(|line| !now.lines().any(|n| n == *line));
            let differing: Vec<String> = (gone.map(|line| format!("- {line}")))
                .chain(new.map(|line| format!("+ {line}")))
                .collect();
            Err(format!(
                "{file} does not list the lessons as their manifests (lessons/NN-key/lesson.toml) \
                 say; `cargo workbook sync` writes it so:\n{}",
                differing.join("\n")
            ))?;
        }
    }
    Ok(())
}

#[test]
fn every_chapter_starts_with_its_lessons_title() -> Result<(), Mismatch> {
    for lesson in LESSONS {
        let chapter = read(&lesson.chapter());
        let heading = chapter.lines().next().unwrap_or_default();
        if heading != format!("# {}", lesson.title) {
            Err(format!(
                "{} starts with {heading:?}, not its manifest's title {:?}",
                lesson.chapter(),
                lesson.title
            ))?;
        }
    }
    Ok(())
}

#[test]
fn every_lesson_is_a_workspace_member_with_its_folder_and_shipped_copy() -> Result<(), Mismatch> {
    let manifest = read("Cargo.toml");
    // The key at the start of a line: a comment may name it too.
    let (members, defaults) = manifest
        .split_once("\ndefault-members")
        .ok_or("Cargo.toml has no default-members")?;
    let root = workspace_root();
    let listed = |list: &str, side: &str, folder: &str| {
        list.contains(&format!("\"{side}/*\"")) || list.contains(&format!("\"{side}/{folder}\""))
    };
    for lesson in LESSONS {
        if !listed(members, "exercises", lesson.folder)
            || !listed(members, "solutions", lesson.folder)
        {
            Err(format!(
                "Cargo.toml's members must cover exercises/{0} and solutions/{0}",
                lesson.folder
            ))?;
        }
        // Exercises are shipped broken: the root `cargo test` must not run them. Nor does it
        // build the solutions' own test binaries: verify plays every solution's suite.
        if listed(defaults, "exercises", lesson.folder)
            || listed(defaults, "solutions", lesson.folder)
        {
            Err(format!(
                "Cargo.toml's default-members must cover neither exercises/{0} nor solutions/{0}",
                lesson.folder
            ))?;
        }
        for (dir, package) in [
            (lesson.exercise_dir(&root), lesson.exercise_package()),
            (lesson.solution_dir(&root), lesson.solution_package()),
        ] {
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
            if !manifest.contains(&format!("name = \"{package}\"")) {
                Err(format!("{} must be the package {package}", dir.display()))?;
            }
        }
        for file in ["exercise-tests.rs", "hints.md", "checks.rs"] {
            let path = lesson.lesson_dir(&root).join(file);
            if !path.is_file() {
                Err(format!(
                    "lesson {} has no {}",
                    lesson.number,
                    path.display()
                ))?;
            }
        }
        let shipped = root
            .join("lessons/support/runner/shipped")
            .join(lesson.folder);
        if !shipped.is_dir() {
            Err(format!(
                "the runner's copy of the shipped exercises has no {} (reset would fail)",
                shipped.display()
            ))?;
        }
    }
    let shipped: Vec<String> = folders(&root.join("lessons/support/runner/shipped"));
    let expected: Vec<String> = LESSONS.iter().map(|l| l.folder.to_string()).collect();
    if shipped != expected {
        Err(format!(
            "lessons/support/runner/shipped holds {shipped:?}, the catalog {expected:?}"
        ))?;
    }
    Ok(())
}

#[test]
fn the_checks_cover_every_lesson() -> Result<(), Mismatch> {
    let numbers: Vec<&str> = verify::LESSONS.iter().map(|l| l.number).collect();
    let expected: Vec<&str> = LESSONS.iter().map(|l| l.number).collect();
    if numbers != expected {
        Err(format!(
            "lessons/support/verify checks lessons {numbers:?}, the catalog lists {expected:?}"
        ))?;
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

/// The students run the exercise's tests and the instructors the solution's: they must be the
/// same file, or a solution could pass tests the exercise never has to.
#[test]
fn every_exercise_and_its_solution_share_one_test_file() -> Result<(), Mismatch> {
    for lesson in verify::LESSONS {
        if let Some(problem) = lesson.test_file_mismatch() {
            Err(format!("lesson {}: {problem}", lesson.number))?;
        }
    }
    Ok(())
}
