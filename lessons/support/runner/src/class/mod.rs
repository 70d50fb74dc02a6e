//! `cargo workbook class DIR`: an instructor's report on a class. DIR holds one checkout of
//! the workbook per student; the report says, per student, which lessons they solved, which
//! kinds of violation each unsolved handler shows (and the sections those cite), and how far
//! their code is from the solution, as a page (`report.html`) and a table (`report.csv`).
//!
//! Each student's code runs in the class's working copy, laid from their checkout with the
//! teacher's files for everything but their handlers, on throwaway databases the kit starts
//! per test, with a deadline per test; never in the teacher's tree, and never into the
//! teacher's `target/` (see [`working_copy`] for why one folder, and how a student is never
//! judged by another's build).

mod checkouts;
mod integrity;
mod judged;
mod report;
mod tree;
mod working_copy;

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use crate::catalog::LESSONS;
use checkouts::Checkout;
use integrity::Change;
use judged::{Judged, Runs};
use tree::Files;

/// A student's line of the report.
#[derive(Debug)]
pub struct Row {
    pub student: String,
    /// The files they changed that are not theirs to write.
    pub changes: Vec<Change>,
    /// Whether the lessons ran anyway (`--trust`); without it, a row with changes is not run.
    pub ran: bool,
    pub lessons: Vec<Judged>,
}

pub fn class(root: &Path, dir: &str, trust: bool, deadline: u64) -> Result<ExitCode, String> {
    let dir = std::fs::canonicalize(dir).map_err(|e| {
        format!(
            "could not read the class folder {dir}: {e}. Name a folder that holds one folder \
             per student (a git clone, or an unpacked archive, of this workbook)."
        )
    })?;
    let checkouts = checkouts::read(&dir)?;
    let scratch = root.join("target").join("workbook").join("class");
    // The teacher may keep the class inside the workbook: it is not the workbook's.
    let teacher = tree::files(root, std::slice::from_ref(&dir))?;
    // Every checkout is read before anything runs: one that cannot be read stops the report
    // before a single file is written.
    let mut read: Vec<(Checkout, Files)> = Vec::new();
    for checkout in checkouts {
        let files = tree::files(&checkout.root, &[])?;
        read.push((checkout, files));
    }
    let started = Instant::now();
    let mut runs = Runs {
        teacher: root,
        work: &scratch.join("work"),
        target: &scratch.join("target"),
        deadline,
        known: HashMap::new(),
    };
    let mut rows = Vec::new();
    for (n, (checkout, files)) in read.iter().enumerate() {
        let changes = integrity::changes(&teacher, files);
        let ran = changes.is_empty() || trust;
        eprintln!(
            "{} ({} of {}){}",
            checkout.student,
            n + 1,
            read.len(),
            not_run(&changes, ran)
        );
        let mut lessons = Vec::new();
        if ran {
            working_copy::lay(runs.work, &wanted(&teacher, files, trust))?;
            for lesson in LESSONS {
                let judged = runs.judge(lesson, files, changes.is_empty());
                if judged.outcome != judged::Outcome::NotStarted {
                    let detail = judged.outcome.detail();
                    let word = judged.outcome.word();
                    eprintln!(
                        "  {} {word}{}",
                        lesson.number,
                        if detail.is_empty() {
                            String::new()
                        } else {
                            format!(": {detail}")
                        }
                    );
                }
                lessons.push(judged);
            }
        }
        rows.push(Row {
            student: checkout.student.clone(),
            changes,
            ran,
            lessons,
        });
    }
    if let Some(shared) = changed_by_all(&rows) {
        eprintln!(
            "every checkout differs from this workbook in {shared}: if the class cloned another \
             version of the workbook, run the report from a checkout of that version."
        );
    }
    let written = report::write(&scratch, &dir, &rows)?;
    eprintln!(
        "the class's {} checkouts were judged in {} s; the report: {}",
        rows.len(),
        started.elapsed().as_secs(),
        (written.iter())
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" and ")
    );
    Ok(ExitCode::SUCCESS)
}

/// What the progress line says of a checkout that changed files that are not its handlers'.
fn not_run(changes: &[Change], ran: bool) -> String {
    let named: Vec<String> = changes.iter().take(3).map(Change::to_string).collect();
    let more = match changes.len() {
        0..=3 => String::new(),
        n => format!(" and {} more", n - 3),
    };
    match (changes.is_empty(), ran) {
        (true, _) => String::new(),
        (false, true) => format!(
            ": run (--trust) though it changed {}{more}",
            named.join(", ")
        ),
        (false, false) => format!(
            ": not run, for changing files that are not its handlers': {}{more}",
            named.join(", ")
        ),
    }
}

/// A file every checkout changed, when there are several and none ran: the sign of a class
/// that cloned another version of the workbook than the teacher's.
fn changed_by_all(rows: &[Row]) -> Option<String> {
    if rows.len() < 2 || rows.iter().any(|r| r.ran) {
        return None;
    }
    let first = &rows[0].changes;
    (first.iter())
        .find(|c| {
            rows.iter()
                .all(|r| r.changes.iter().any(|d| d.path == c.path))
        })
        .map(|c| c.path.display().to_string())
}

/// The files a student's run uses: their handlers, and the teacher's everything else (or, for
/// a checkout the teacher trusts, everything of theirs).
fn wanted(teacher: &Files, student: &Files, trust: bool) -> Files {
    let mut wanted: Files = match trust {
        true => student.clone(),
        false => (teacher.iter())
            .filter(|(path, _)| !integrity::is_the_students(path))
            .map(|(path, at)| (path.clone(), at.clone()))
            .collect(),
    };
    for (path, at) in student {
        if integrity::is_the_students(path) {
            wanted.insert(path.clone(), at.clone());
        }
    }
    wanted
}
