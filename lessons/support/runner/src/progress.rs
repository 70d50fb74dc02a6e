//! What the runner remembers between runs: each lesson's last verdict, with a fingerprint of
//! every file that could change it, and how many hints were shown. Keyed by the lessons' stable
//! keys, so renaming or reordering folders loses nothing. It is a cache: deleting it (or
//! `cargo clean`) only costs a re-run of the tests.

use std::collections::BTreeMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::catalog::Lesson;

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Progress {
    #[serde(default)]
    lessons: BTreeMap<String, Entry>,
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// The fingerprint the verdict was reached with.
    pub fingerprint: String,
    /// "solved", "not yet" or "does not compile"; empty when never checked.
    pub verdict: String,
    #[serde(default)]
    pub hints_seen: usize,
}

impl Progress {
    /// In `target/`, beside the build it describes; `WORKBOOK_STATE_DIR` moves it (the
    /// runner's own tests use a directory of their own).
    fn file(root: &Path) -> PathBuf {
        let dir = std::env::var_os("WORKBOOK_STATE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target"));
        dir.join("workbook-progress.json")
    }

    /// A missing file is an empty cache, never an error: it only costs a run. So is a file that
    /// cannot be read, but that is said, once: the file is moved aside (kept, not deleted, in
    /// case someone wants to look at it) so that the next run starts clean and quiet.
    pub fn load(root: &Path) -> Progress {
        let file = Self::file(root);
        let Ok(text) = std::fs::read_to_string(&file) else {
            return Progress::default();
        };
        match serde_json::from_str(&text) {
            Ok(progress) => progress,
            Err(error) => {
                let aside = file.with_extension("json.unreadable");
                let kept = match std::fs::rename(&file, &aside) {
                    Ok(()) => format!("it is kept as {}", aside.display()),
                    Err(e) => format!("and could not be moved aside ({e})"),
                };
                eprintln!(
                    "note: the progress file {} is not valid ({error}); {kept}. Starting from \
                     empty progress: verdicts are found again by running the tests, and the \
                     hints start from the first.",
                    file.display()
                );
                Progress::default()
            }
        }
    }

    pub fn save(&self, root: &Path) -> Result<(), String> {
        let file = Self::file(root);
        let text = serde_json::to_string_pretty(self).expect("progress serialises");
        std::fs::create_dir_all(file.parent().expect("the file is in a directory"))
            .and_then(|()| std::fs::write(&file, text))
            .map_err(|e| format!("could not save progress to {}: {e}", file.display()))
    }

    pub fn entry(&mut self, lesson: &Lesson) -> &mut Entry {
        self.lessons.entry(lesson.key.to_string()).or_default()
    }

    /// Whether the lesson's tests have ever been run to a verdict.
    pub fn checked_before(&self, lesson: &Lesson) -> bool {
        self.lessons
            .get(lesson.key)
            .is_some_and(|entry| !entry.verdict.is_empty())
    }

    /// The cached verdict word, if it was reached with exactly these files.
    pub fn cached_verdict(&self, lesson: &Lesson, fingerprint: &str) -> Option<&str> {
        self.lessons
            .get(lesson.key)
            .filter(|entry| entry.fingerprint == fingerprint && !entry.verdict.is_empty())
            .map(|entry| entry.verdict.as_str())
    }
}

/// A hash of the names and contents of every file under `paths` (`target/` skipped). Not stable
/// across Rust releases, which for a cache only means one extra run after an upgrade.
pub fn fingerprint(paths: &[PathBuf]) -> String {
    let mut files = Vec::new();
    for path in paths {
        collect(path, &mut files);
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in files {
        file.hash(&mut hasher);
        std::fs::read(&file).unwrap_or_default().hash(&mut hasher);
    }
    format!("{:016x}", hasher.finish())
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_file() {
        files.push(path.to_path_buf());
        return;
    }
    for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
        if entry.file_name() != "target" {
            collect(&entry.path(), files);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_file_changes_the_fingerprint_and_nothing_else_does() {
        let dir = std::env::temp_dir().join(format!("wb-fp-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/lib.rs"), "fn a() {}").unwrap();
        let paths = vec![dir.clone()];
        let first = fingerprint(&paths);
        assert_eq!(fingerprint(&paths), first);
        std::fs::write(dir.join("src/lib.rs"), "fn b() {}").unwrap();
        assert_ne!(fingerprint(&paths), first);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
