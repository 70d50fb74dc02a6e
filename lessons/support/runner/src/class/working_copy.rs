//! The one folder every student's code runs in, laid again for each student.
//!
//! Why one folder and not one per student: cargo names a workspace's crates by their path
//! *inside* the workspace, so every copy of the workbook builds the same crate names into the
//! class's shared target directory, and build scripts (the catalog's) remember absolute paths.
//! Copies at different paths would rebuild the kit and every lesson crate for each student;
//! one folder, laid again, rebuilds only what differs.
//!
//! What keeps a student from being judged by the last one's build: cargo takes a crate for up
//! to date when none of its files is newer than its last build. So a file is written only when
//! its content differs from what the folder holds, and then with the time it was written (never
//! its source's): whatever changed between two students is newer than every build before it,
//! and whatever did not change keeps its build.

use std::path::Path;

use crate::class::tree::{self, Files};

/// Makes `work` hold exactly `wanted` (path inside the workbook → the file to copy), writing
/// only the files whose content differs and deleting those not wanted. `target/` inside `work`
/// (where a run keeps its scratch files) is left alone. Returns how many files it wrote.
pub fn lay(work: &Path, wanted: &Files) -> Result<usize, String> {
    std::fs::create_dir_all(work)
        .map_err(|e| format!("could not create {}: {e}", work.display()))?;
    let held = tree::files(work, &[])?;
    for (path, at) in &held {
        if !wanted.contains_key(path) {
            std::fs::remove_file(at)
                .map_err(|e| format!("could not remove {}: {e}", at.display()))?;
        }
    }
    let mut written = 0;
    for (path, source) in wanted {
        // A link is never followed out of a checkout: integrity reports it instead.
        if tree::is_link(source) {
            continue;
        }
        let bytes = std::fs::read(source)
            .map_err(|e| format!("could not read {}: {e}", source.display()))?;
        let at = work.join(path);
        if std::fs::read(&at).is_ok_and(|held| held == bytes) {
            continue;
        }
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("could not create {}: {e}", parent.display()))?;
        }
        // Removed first, so that the write makes a new file with a new time even where the
        // filesystem would keep an old one for a rewrite of the same length.
        let _ = std::fs::remove_file(&at);
        std::fs::write(&at, &bytes)
            .map_err(|e| format!("could not write {}: {e}", at.display()))?;
        written += 1;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_differs_is_written_and_what_is_not_wanted_goes() {
        let sources = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let file = |name: &str, text: &str| {
            let at = sources.path().join(name);
            std::fs::write(&at, text).unwrap();
            at
        };
        let same = file("same", "kept");
        let first: Files = [
            ("a.rs".into(), same.clone()),
            ("b.rs".into(), file("b1", "one")),
        ]
        .into();
        assert_eq!(lay(work.path(), &first).unwrap(), 2);
        std::fs::create_dir_all(work.path().join("target")).unwrap();
        std::fs::write(work.path().join("target/scratch"), "a run's").unwrap();
        let kept_time = std::fs::metadata(work.path().join("a.rs"))
            .unwrap()
            .modified()
            .unwrap();

        let second: Files = [("a.rs".into(), same), ("c.rs".into(), file("c", "new"))].into();
        assert_eq!(lay(work.path(), &second).unwrap(), 1);
        let now: Vec<_> = tree::files(work.path(), &[]).unwrap().into_keys().collect();
        assert_eq!(now, vec![Path::new("a.rs"), Path::new("c.rs")]);
        let time = std::fs::metadata(work.path().join("a.rs"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(time, kept_time, "an unchanged file keeps its build");
        assert!(work.path().join("target/scratch").exists());
    }
}
