//! The exercises as shipped, compiled into the runner: what `reset` restores. A copy, not git,
//! so that it works in a downloaded zip. The root suite judges this copy, not exercises/ (which
//! a student edits), and verify's `tests/checks/shipped.rs` keeps the two equal on a pristine
//! checkout (`cargo workbook verify` runs it).

use std::path::Path;

use include_dir::{Dir, include_dir};

use crate::catalog::Lesson;

static SHIPPED: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/shipped");

/// Every shipped file of `lesson`, as (path inside the exercise, contents).
pub fn files(lesson: &Lesson) -> Vec<(&'static Path, &'static [u8])> {
    let mut files = Vec::new();
    if let Some(dir) = SHIPPED.get_dir(lesson.folder) {
        collect(dir, lesson.folder, &mut files);
    }
    files
}

fn collect(
    dir: &'static Dir<'static>,
    folder: &str,
    out: &mut Vec<(&'static Path, &'static [u8])>,
) {
    for file in dir.files() {
        let relative = file
            .path()
            .strip_prefix(folder)
            .expect("inside the lesson's folder");
        out.push((relative, file.contents()));
    }
    for sub in dir.dirs() {
        collect(sub, folder, out);
    }
}
