//! A workbook's files, as the class report compares and copies them: every file by its path
//! inside the workbook, leaving out what a checkout makes as it is used (builds, git's own
//! records, the rendered book), which no student wrote and which differs on every machine.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Relative path → absolute path, in path order.
pub type Files = BTreeMap<PathBuf, PathBuf>;

/// The files under `root`, without `target/` and `.git/` (at any depth), `book/book/`, and
/// anything in `leave_out` (the class folder, when the teacher keeps it inside the workbook).
/// A symbolic link is listed as a file: comparing it reads what it points to, and the report
/// flags it rather than follow it out of the checkout (see [`is_link`]).
pub fn files(root: &Path, leave_out: &[PathBuf]) -> Result<Files, String> {
    let mut found = Files::new();
    walk(root, root, leave_out, &mut found)
        .map_err(|e| format!("could not read {}: {e}", root.display()))?;
    Ok(found)
}

fn walk(root: &Path, dir: &Path, leave_out: &[PathBuf], found: &mut Files) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let relative = path
            .strip_prefix(root)
            .expect("under the root")
            .to_path_buf();
        let name = entry.file_name();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            let built = name == "target" || name == ".git" || relative == Path::new("book/book");
            if !built && !leave_out.contains(&path) {
                walk(root, &path, leave_out, found)?;
            }
        } else {
            found.insert(relative, path);
        }
    }
    Ok(())
}

/// Whether `path` is a symbolic link: a checkout's code is its files, and a link could point
/// anywhere on the teacher's machine.
pub fn is_link(path: &Path) -> bool {
    path.symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
}

/// Whether two texts are the same file: line endings aside, since a checkout made on Windows
/// (git's `core.autocrlf`) ends its lines with CR LF and is no edit.
pub fn same_text(a: &[u8], b: &[u8]) -> bool {
    a == b || without_cr(a) == without_cr(b)
}

fn without_cr(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for (i, &byte) in bytes.iter().enumerate() {
        if !(byte == b'\r' && bytes.get(i + 1) == Some(&b'\n')) {
            out.push(byte);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_git_and_the_rendered_book_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            "Cargo.toml",
            "target/debug/x",
            ".git/HEAD",
            "book/book/index.html",
        ] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), "").unwrap();
        }
        std::fs::create_dir_all(root.join("book/src")).unwrap();
        std::fs::write(root.join("book/src/a.md"), "").unwrap();
        let listed: Vec<PathBuf> = files(root, &[]).unwrap().into_keys().collect();
        assert_eq!(
            listed,
            vec![PathBuf::from("Cargo.toml"), PathBuf::from("book/src/a.md")]
        );
    }

    #[test]
    fn line_endings_are_no_edit_but_a_changed_line_is() {
        assert!(same_text(b"a\r\nb\r\n", b"a\nb\n"));
        assert!(!same_text(b"a\r\nc\r\n", b"a\nb\n"));
    }
}
