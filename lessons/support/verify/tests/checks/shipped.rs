//! `cargo workbook reset` restores the copy of the exercises compiled into the runner
//! (lessons/support/runner/shipped), and the root suite judges that copy: every check of a
//! shipped exercise, the wrong fixes patched from it, the book's listings. So on a pristine
//! checkout the copy must equal exercises/ exactly. A student's checkout differs as soon as an
//! exercise is edited, so this check is not part of the root suite: `cargo workbook verify` (and
//! CI) runs it. `WORKBOOK_BLESS=1 cargo test -p workbook-verify --test checks shipped --
//! --include-ignored` writes the copy from exercises/: how a maintainer makes it, for a new
//! lesson or a changed exercise.

use std::path::{Path, PathBuf};

/// What `reset` restores of an exercise: its code and its migrations, not its `Cargo.toml`
/// (which a student has no reason to edit) nor anything a build leaves behind.
const RESTORED: [&str; 2] = ["src", "migrations"];

#[test]
#[ignore = "exercises/ as a student leaves it: cargo workbook verify runs it"]
fn the_runner_s_copy_of_the_exercises_is_the_shipped_one() -> Result<(), String> {
    let root = verify::workspace_root();
    let copy = root.join("lessons/support/runner/shipped");
    let bless = std::env::var_os("WORKBOOK_BLESS").is_some();
    let mut differing = Vec::new();
    for folder in folders(&root.join("exercises"))?.union(&folders(&copy)?) {
        let (exercise, shipped) = (root.join("exercises").join(folder), copy.join(folder));
        for dir in RESTORED {
            let mut files = files_under(&shipped.join(dir));
            files.extend(files_under(&exercise.join(dir)));
            files.sort();
            files.dedup();
            for file in files {
                let (theirs, ours) = (
                    exercise.join(dir).join(&file),
                    shipped.join(dir).join(&file),
                );
                let wanted = std::fs::read(&theirs).ok();
                if std::fs::read(&ours).ok() == wanted {
                    continue;
                }
                if bless {
                    write(&ours, wanted.as_deref())
                        .map_err(|e| format!("{}: {e}", ours.display()))?;
                } else {
                    differing.push(format!("{folder}/{dir}/{}", file.display()));
                }
            }
        }
    }
    if differing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "exercises/ and lessons/support/runner/shipped/ differ: {}.\nIf you are a student who edited an \
         exercise, that is expected: `cargo workbook reset NN` restores it. If you are changing \
         an exercise as a maintainer, run `WORKBOOK_BLESS=1 cargo test -p workbook-verify --test \
         checks shipped -- --include-ignored` to copy it, and review the diff.",
        differing.join(", ")
    ))
}

/// The folders directly under `dir` (a missing `dir` has none).
fn folders(dir: &Path) -> Result<std::collections::BTreeSet<String>, String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Default::default());
    };
    let mut names = std::collections::BTreeSet::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        if entry.path().is_dir() {
            names.insert(entry.file_name().to_string_lossy().into_owned());
        }
    }
    Ok(names)
}

/// Makes `path` hold `contents`, or removes it when the exercise has no such file.
fn write(path: &Path, contents: Option<&[u8]>) -> std::io::Result<()> {
    match contents {
        Some(contents) => {
            std::fs::create_dir_all(path.parent().expect("a file inside a folder"))?;
            std::fs::write(path, contents)
        }
        None => std::fs::remove_file(path),
    }
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(
                files_under(&path)
                    .into_iter()
                    .map(|f| PathBuf::from(entry.file_name()).join(f)),
            );
        } else {
            files.push(PathBuf::from(entry.file_name()));
        }
    }
    files
}
