//! `report.csv`: a line per student and lesson, for a spreadsheet or a gradebook.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::catalog::LESSONS;
use crate::class::Row;
use crate::class::judged::Outcome;

/// One line of `report.csv`.
#[derive(Serialize)]
struct Line<'a> {
    student: &'a str,
    lesson: &'a str,
    outcome: &'static str,
    /// Each kind of violation and how many tests showed it: `ChargedTwice (3); …`.
    kinds: String,
    /// The sections those kinds cite.
    cites: String,
    /// The compiler's first error, the test that was stopped, or the files changed.
    detail: String,
    lines_from_solution: Option<usize>,
}

pub fn table(rows: &[Row]) -> Result<Vec<u8>, String> {
    let mut out = csv::Writer::from_writer(Vec::new());
    for row in rows {
        if !row.ran {
            let changed: Vec<String> = row.changes.iter().map(|c| c.to_string()).collect();
            for lesson in LESSONS {
                out.serialize(Line {
                    student: &row.student,
                    lesson: lesson.number,
                    outcome: "not run",
                    kinds: String::new(),
                    cites: String::new(),
                    detail: format!(
                        "changed files that are not its handlers': {}",
                        changed.join("; ")
                    ),
                    lines_from_solution: None,
                })
                .map_err(|e| e.to_string())?;
            }
            continue;
        }
        for judged in &row.lessons {
            let (kinds, cites, detail) = match &judged.outcome {
                Outcome::Failing(kinds) => {
                    let cites: BTreeSet<&str> = kinds.iter().map(|k| k.cites.as_str()).collect();
                    let cites: Vec<&str> = cites.into_iter().collect();
                    (judged.outcome.detail(), cites.join("; "), String::new())
                }
                other => (String::new(), String::new(), other.detail()),
            };
            out.serialize(Line {
                student: &row.student,
                lesson: judged.lesson.number,
                outcome: judged.outcome.word(),
                kinds,
                cites,
                detail,
                lines_from_solution: judged.lines_from_solution,
            })
            .map_err(|e| e.to_string())?;
        }
    }
    out.into_inner().map_err(|e| e.to_string())
}
