//! The class folder: one entry per student, each a checkout of this workbook (a git clone, or
//! an archive unpacked into a folder). Everything in it is read before anything runs, and any
//! entry that is not a checkout stops the report with every such entry named: a report that
//! silently left a student out would be worse than none.

use std::path::{Path, PathBuf};

/// A student's checkout: the name the report gives them (their folder's), and the workbook's
/// root inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    pub student: String,
    pub root: PathBuf,
}

/// Every student's checkout in `dir`, by name; or why the folder cannot be reported on.
pub fn read(dir: &Path) -> Result<Vec<Checkout>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        format!(
            "could not read the class folder {}: {e}. Name a folder that holds one folder per \
             student (a git clone, or an unpacked archive, of this workbook).",
            dir.display()
        )
    })?;
    let mut names: Vec<(String, PathBuf)> = entries
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        // Hidden entries are a file manager's or git's (.DS_Store, .git), not a student.
        .filter(|(name, _)| !name.starts_with('.'))
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(format!(
            "{} holds no checkouts: it should hold one folder per student, each a git clone (or \
             an unpacked archive) of this workbook.",
            dir.display()
        ));
    }
    let mut checkouts = Vec::new();
    let mut refused = Vec::new();
    for (name, path) in names {
        match checkout(&path) {
            Ok(root) => checkouts.push(Checkout {
                student: name,
                root,
            }),
            Err(why) => refused.push(format!("  {name} {why}")),
        }
    }
    if !refused.is_empty() {
        return Err(format!(
            "{} holds {} entr{} that {} not a checkout of this workbook, so no report was \
             written:\n{}\nMove {} out of the class folder (or fix {}), then run this again.",
            dir.display(),
            refused.len(),
            if refused.len() == 1 { "y" } else { "ies" },
            if refused.len() == 1 { "is" } else { "are" },
            refused.join("\n"),
            if refused.len() == 1 { "it" } else { "them" },
            if refused.len() == 1 { "it" } else { "them" },
        ));
    }
    Ok(checkouts)
}

/// The workbook's root in a student's entry: the entry itself (a clone), or the one folder an
/// archive unpacked into (`alice/idempotency-workbook-main/`).
fn checkout(entry: &Path) -> Result<PathBuf, String> {
    if !entry.is_dir() {
        return Err(not_a_folder(entry));
    }
    if is_this_workbook(entry) {
        return Ok(entry.to_path_buf());
    }
    let inside: Vec<PathBuf> = std::fs::read_dir(entry)
        .map_err(|e| format!("could not be read: {e}"))?
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    match inside.as_slice() {
        [only] if only.is_dir() && is_this_workbook(only) => Ok(only.clone()),
        [only] if !only.is_dir() => Err(format!(
            "is a folder holding only {}, which {}",
            file_name(only),
            not_a_folder(only)
        )),
        _ => Err(
            "is a folder, but not this workbook: it has no Cargo.toml workspace beside exercises/ \
             and lessons/support/runner/ (nor does a single folder inside it)"
                .to_string(),
        ),
    }
}

/// A checkout of this workbook, not merely of some Cargo workspace: its runner is where ours is.
fn is_this_workbook(dir: &Path) -> bool {
    dir.join("exercises").is_dir()
        && dir.join("lessons/support/runner/Cargo.toml").is_file()
        && std::fs::read_to_string(dir.join("Cargo.toml"))
            .is_ok_and(|manifest| manifest.contains("[workspace]"))
}

/// Why a file is not a checkout, in the words that get the teacher going again.
fn not_a_folder(path: &Path) -> String {
    let name = file_name(path);
    let archive = [
        ".zip", ".tar.gz", ".tgz", ".tar", ".tar.xz", ".tar.bz2", ".7z", ".rar",
    ]
    .into_iter()
    .find(|suffix| name.to_ascii_lowercase().ends_with(suffix));
    match archive {
        Some(".zip") => format!(
            "is an archive, which the report does not open: unpack it into a folder of its own \
             first (unzip {name} -d {})",
            name.trim_end_matches(".zip")
        ),
        Some(_) => format!(
            "is an archive, which the report does not open: unpack it into a folder of its own \
             first (mkdir {0} && tar -xf {name} -C {0})",
            name.split('.').next().unwrap_or("student")
        ),
        None => "is a file, not a folder: the class folder holds one folder per student".into(),
    }
}

fn file_name(path: &Path) -> String {
    (path.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workbook(at: &Path) {
        std::fs::create_dir_all(at.join("exercises")).unwrap();
        std::fs::create_dir_all(at.join("lessons/support/runner")).unwrap();
        std::fs::write(at.join("lessons/support/runner/Cargo.toml"), "").unwrap();
        std::fs::write(at.join("Cargo.toml"), "[workspace]\n").unwrap();
    }

    #[test]
    fn clones_and_unpacked_archives_are_read_in_order_and_hidden_entries_skipped() {
        let class = tempfile::tempdir().unwrap();
        workbook(&class.path().join("bob"));
        workbook(&class.path().join("alice/idempotency-workbook-main"));
        std::fs::write(class.path().join(".DS_Store"), "").unwrap();
        let read = read(class.path()).unwrap();
        assert_eq!(
            read,
            vec![
                Checkout {
                    student: "alice".into(),
                    root: class.path().join("alice/idempotency-workbook-main"),
                },
                Checkout {
                    student: "bob".into(),
                    root: class.path().join("bob"),
                },
            ]
        );
    }

    #[test]
    fn an_empty_folder_has_no_checkouts() {
        let class = tempfile::tempdir().unwrap();
        let error = read(class.path()).unwrap_err();
        assert!(error.contains("holds no checkouts"), "{error}");
    }

    #[test]
    fn another_project_and_an_archive_are_each_named_with_what_to_do() {
        let class = tempfile::tempdir().unwrap();
        workbook(&class.path().join("alice"));
        std::fs::create_dir_all(class.path().join("carol/src")).unwrap();
        std::fs::write(class.path().join("carol/Cargo.toml"), "[workspace]\n").unwrap();
        std::fs::write(class.path().join("dave.zip"), "PK").unwrap();
        std::fs::write(class.path().join("erin.tar.gz"), "").unwrap();
        let error = read(class.path()).unwrap_err();
        assert!(error.contains("3 entries that are not"), "{error}");
        assert!(
            error.contains("carol is a folder, but not this workbook"),
            "{error}"
        );
        assert!(error.contains("unzip dave.zip -d dave"), "{error}");
        assert!(
            error.contains("mkdir erin && tar -xf erin.tar.gz -C erin"),
            "{error}"
        );
        assert!(!error.contains("alice"), "{error}");
    }
}
