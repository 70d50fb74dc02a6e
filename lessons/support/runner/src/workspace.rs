//! Where the workbook is, found at run time: a checkout that was moved or copied works on its
//! own files, never on those of the checkout the runner happened to be built in.

use std::path::{Path, PathBuf};

/// The nearest folder, from the current directory up, that holds the workbook: a workspace
/// `Cargo.toml` beside `exercises/` and `lessons/`.
pub fn root() -> Result<PathBuf, String> {
    let here = std::env::current_dir()
        .map_err(|e| format!("could not read the current directory: {e}"))?;
    find_from(&here).ok_or_else(|| {
        format!(
            "{} is not inside the workbook: run `cargo workbook` from the workbook's folder \
             (the one with exercises/, lessons/ and book/) or any folder below it.",
            here.display()
        )
    })
}

fn find_from(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| is_workbook(dir))
        .map(Path::to_path_buf)
}

fn is_workbook(dir: &Path) -> bool {
    dir.join("exercises").is_dir()
        && dir.join("lessons").is_dir()
        && std::fs::read_to_string(dir.join("Cargo.toml"))
            .is_ok_and(|manifest| manifest.contains("[workspace]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workbook_is_found_from_any_folder_inside_it() {
        let checkout = tempfile::tempdir().unwrap();
        let root = checkout.path();
        std::fs::create_dir_all(root.join("exercises/01-x/src")).unwrap();
        std::fs::create_dir_all(root.join("lessons")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
        std::fs::write(root.join("exercises/01-x/Cargo.toml"), "[package]\n").unwrap();

        let deep = root.join("exercises/01-x/src");
        assert_eq!(find_from(&deep).as_deref(), Some(root));
        assert_eq!(find_from(root).as_deref(), Some(root));
        assert_eq!(find_from(Path::new("/")), None);
    }
}
