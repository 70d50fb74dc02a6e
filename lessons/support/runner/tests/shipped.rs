//! `cargo workbook reset` restores the copy of the exercises compiled into the runner
//! (lessons/support/runner/shipped). On a pristine checkout it must equal exercises/ exactly.

use std::path::{Path, PathBuf};

#[test]
fn the_runner_s_copy_of_the_exercises_is_the_shipped_one() -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let copy = root.join("lessons/support/runner/shipped");
    let mut differing = Vec::new();
    for lesson in std::fs::read_dir(&copy)
        .map_err(|e| e.to_string())?
        .flatten()
    {
        let folder = lesson.file_name();
        let exercise = root.join("exercises").join(&folder);
        for dir in ["src", "migrations"] {
            let mut files = files_under(&lesson.path().join(dir));
            files.extend(files_under(&exercise.join(dir)));
            files.sort();
            files.dedup();
            for file in files {
                let ours = std::fs::read(lesson.path().join(dir).join(&file)).ok();
                let theirs = std::fs::read(exercise.join(dir).join(&file)).ok();
                if ours != theirs {
                    differing.push(format!(
                        "{}/{dir}/{}",
                        folder.to_string_lossy(),
                        file.display()
                    ));
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
         an exercise as a maintainer, copy it to lessons/support/runner/shipped/ too.",
        differing.join(", ")
    ))
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
