//! The class report, written twice: `report.html`, for the teacher to read (a chart of the
//! kinds of violation per lesson, then a row per student), and `report.csv`, a row per student
//! and lesson, for a spreadsheet or a gradebook. Each is written whole or not at all.

mod page;
mod table;

use std::path::{Path, PathBuf};

use crate::class::Row;

/// Writes both files into `folder`; returns their paths.
pub fn write(folder: &Path, class: &Path, rows: &[Row]) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(folder)
        .map_err(|e| format!("could not create {}: {e}", folder.display()))?;
    let html = folder.join("report.html");
    let csv = folder.join("report.csv");
    whole(&html, page::page(class, rows).as_bytes())?;
    whole(&csv, &table::table(rows)?)?;
    Ok(vec![html, csv])
}

/// Written to a file beside it, then renamed: an interrupted report leaves the last one whole.
fn whole(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let partial = path.with_file_name(format!("{name}.partial"));
    std::fs::write(&partial, bytes)
        .and_then(|()| std::fs::rename(&partial, path))
        .map_err(|e| format!("could not write {}: {e}", path.display()))
}
