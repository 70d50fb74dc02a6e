//! `cargo workbook` (or `… status`): the table of lessons, and the one to do next.
//!
//! It runs the tests of one lesson at most: the first whose verdict is not known for its current
//! files, if every lesson before it is solved. That is the lesson the student needs now; the
//! lessons after the next unsolved one say that they have not been checked, instead of costing
//! a build and a test run each (ten lessons took four minutes on a first run).

use std::path::Path;
use std::process::ExitCode;

use console::style;

use crate::catalog::{LESSONS, Lesson};
use serde::Serialize;

use crate::Format;
use crate::progress::{Progress, fingerprint};
use crate::{results, tests_run};

/// What the table says of one lesson.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// A verdict reached with the lesson's current files: "solved", "not yet", "does not compile".
    Known(String),
    /// Never checked.
    NotChecked,
    /// Checked once, and its files (yours, or the lesson's) have changed since.
    Changed,
}

impl Row {
    fn word(&self) -> &str {
        match self {
            Row::Known(verdict) => verdict,
            Row::NotChecked => "not checked",
            Row::Changed => "edited, unchecked",
        }
    }

    fn solved(&self) -> bool {
        *self == Row::Known("solved".into())
    }
}

pub fn status(root: &Path, format: Format) -> Result<ExitCode, String> {
    let mut progress = Progress::load(root);
    let mut rows = Vec::new();
    let mut checked = None;
    for lesson in LESSONS {
        let print = fingerprint(&lesson.inputs(root));
        let row = match progress.cached_verdict(lesson, &print) {
            Some(verdict) => Row::Known(verdict.to_string()),
            // Every lesson before this one is solved: this is the one to check now.
            None if rows.iter().all(|(_, row): &(&Lesson, Row)| row.solved()) => {
                eprintln!(
                    "checking lesson {} (cargo test -p {}) …",
                    lesson.number,
                    lesson.exercise_package()
                );
                let verdict = match format {
                    Format::Text => tests_run::run(root, lesson)?,
                    Format::Json => {
                        let package = lesson.exercise_package();
                        let (results, verdict) = results::run(root, lesson, &package, &[])?;
                        checked = Some(results);
                        verdict
                    }
                };
                if crate::commands::worth_remembering(&verdict) {
                    let entry = progress.entry(lesson);
                    entry.fingerprint = print;
                    entry.verdict = verdict.word().to_string();
                }
                Row::Known(verdict.word().to_string())
            }
            None if progress.checked_before(lesson) => Row::Changed,
            None => Row::NotChecked,
        };
        rows.push((lesson, row));
    }
    progress.save(root)?;
    match format {
        Format::Text => print!("{}", table(&rows, true)),
        Format::Json => println!("{}", results::to_json(&as_data(&rows, checked))),
    }
    Ok(ExitCode::SUCCESS)
}

/// The status as data: every lesson's row, the next lesson, and the results of the lesson it
/// checked now, if it checked one (a verdict it already knew is not run again).
#[derive(Debug, Serialize)]
pub struct StatusData {
    pub lessons: Vec<LessonRow>,
    /// The first lesson not solved; `null` once every exercise is.
    pub next: Option<&'static str>,
    pub checked: Option<results::Results>,
}

#[derive(Debug, Serialize)]
pub struct LessonRow {
    #[serde(flatten)]
    pub named: results::LessonNamed,
    /// As the table says it: "solved", "not yet", "does not compile", "not checked",
    /// "edited, unchecked".
    pub exercise: String,
}

fn as_data(rows: &[(&'static Lesson, Row)], checked: Option<results::Results>) -> StatusData {
    StatusData {
        lessons: (rows.iter())
            .map(|(lesson, row)| LessonRow {
                named: (*lesson).into(),
                exercise: row.word().to_string(),
            })
            .collect(),
        next: (rows.iter())
            .find(|(_, row)| !row.solved())
            .map(|(l, _)| l.number),
        checked,
    }
}

/// The table and what to do next. Sized for an 80-column terminal: the verdict before the
/// title, whose length varies, and the chapter named once, for the next lesson.
pub fn table(rows: &[(&Lesson, Row)], colour: bool) -> String {
    const VERDICT: usize = 17;
    let mut out = format!("{:<3} {:<VERDICT$} lesson\n", "", "exercise");
    for (lesson, row) in rows {
        let word = format!("{:<VERDICT$}", row.word());
        let word = match (colour, row) {
            (false, _) => word,
            (true, row) if row.solved() => style(word).green().to_string(),
            (true, Row::Known(_)) => style(word).yellow().to_string(),
            (true, _) => style(word).dim().to_string(),
        };
        out.push_str(&format!("{:<3} {word} {}\n", lesson.number, lesson.title));
    }
    match rows.iter().find(|(_, row)| !row.solved()) {
        Some((next, _)) => out.push_str(&format!(
            "\nNext: lesson {}. Edit exercises/{}/src/lib.rs, read {}, and run \
             `cargo workbook check {}`.\n",
            next.number,
            next.folder,
            next.chapter(),
            next.number
        )),
        None => out.push_str("\nEvery exercise is solved.\n"),
    }
    if rows
        .iter()
        .any(|(_, row)| matches!(row, Row::NotChecked | Row::Changed))
    {
        out.push_str(
            "Lessons after the next one are checked when you get to them (or now, with \
             `cargo workbook check NN`).\n",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_fits_eighty_columns_and_names_the_next_lesson() {
        let every: Vec<(&Lesson, Row)> = (LESSONS.iter()).map(|l| (l, Row::NotChecked)).collect();
        for line in table(&every, false).lines().take(LESSONS.len() + 1) {
            assert!(line.chars().count() <= 80, "{line:?} is wider than 80");
        }
        // The first four lessons show every kind of row: a new lesson changes no snapshot.
        let rows: Vec<(&Lesson, Row)> = LESSONS[..4]
            .iter()
            .enumerate()
            .map(|(i, lesson)| {
                let row = match i {
                    0 => Row::Known("solved".into()),
                    1 => Row::Known("not yet".into()),
                    2 => Row::Changed,
                    _ => Row::NotChecked,
                };
                (lesson, row)
            })
            .collect();
        insta::assert_snapshot!(table(&rows, false));
    }
}
