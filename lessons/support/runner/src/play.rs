//! `cargo workbook play FILE.spec`: a spec of SQL sessions, in PostgreSQL's isolation-tester
//! dialect (its own specs, Hermitage's, the reader's), played on a throwaway database exactly as
//! PostgreSQL's `isolationtester` plays it. Standard output is what that tester prints, so a
//! `diff` against PostgreSQL's expected output means something; the stepper pages, one per
//! permutation, are said on standard error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::catalog;
use crate::tests_run::cargo;

/// A play may take as long as its specs make it wait (a step is cancelled after
/// `PGISOLATIONTIMEOUT`, 300 s unless set): the kit's deadline for one test is no limit here.
const PLAY_DEADLINE_SECONDS: &str = "7200";

pub fn play(
    root: &Path,
    file: &str,
    permutation: Option<usize>,
    schema: Option<&str>,
    level: Option<&str>,
) -> Result<ExitCode, String> {
    let path = std::path::absolute(file)
        .ok()
        .filter(|path| path.is_file())
        .ok_or_else(|| {
            format!(
                "no spec file at {file}. PostgreSQL's own specs are in its source, \
                 src/test/isolation/specs/; the workbook's are in \
                 lessons/support/kit/tests/isolation/"
            )
        })?;
    let stem = path
        .file_stem()
        .map_or("spec".into(), |s| s.to_string_lossy());
    let out = root.join("target/workbook/play").join(stem.as_ref());
    // Only this play's pages: an old one would pass for this one's.
    if out.exists() {
        std::fs::remove_dir_all(&out)
            .map_err(|e| format!("could not empty {}: {e}", out.display()))?;
    }
    let schema = match schema {
        Some(lesson) => {
            let lesson = catalog::find(lesson)?;
            Some(root.join("migrations").join(lesson.schema))
        }
        None => None,
    };
    let mut command = crate::dev::kit_binary(cargo(root), "workbook-play");
    command
        .arg(&path)
        .arg(&out)
        .args(
            permutation
                .iter()
                .flat_map(|n| ["--permutation".to_string(), n.to_string()]),
        )
        .env("WORKBOOK_TEST_DEADLINE", PLAY_DEADLINE_SECONDS);
    if let Some(schema) = schema {
        command.arg("--schema").arg(schema);
    }
    if let Some(level) = level {
        command.args(["--level", level]);
    }
    let played = crate::dev::run(command)?;
    for (n, json) in pages_to_write(&out) {
        let title = format!(
            "{}, permutation {n}",
            path.file_name()
                .map_or(stem.as_ref().into(), |f| f.to_string_lossy())
        );
        let order = std::fs::read_to_string(json.with_extension("txt")).unwrap_or_default();
        let order = order.lines().next().unwrap_or("").to_string();
        let about = format!(
            "Permutation {n} ({order}), played as PostgreSQL's isolation tester plays it: every \
             statement, in the order the sessions sent them."
        );
        if let Ok(page) = crate::trace::stepper_page(&json, &title, &about) {
            eprintln!("permutation {n}, step by step: file://{}", page.display());
        }
    }
    Ok(played)
}

/// The statements each permutation left (`N.json`), by N.
fn pages_to_write(out: &Path) -> Vec<(usize, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Vec::new();
    };
    let mut found: Vec<(usize, PathBuf)> = (entries.flatten().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .filter_map(|path| Some((path.file_stem()?.to_str()?.parse().ok()?, path)))
        .collect();
    found.sort();
    found
}
