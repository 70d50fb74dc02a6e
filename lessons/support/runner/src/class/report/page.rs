//! `report.html`: the chart of kinds per lesson first (what the class got wrong, at a
//! glance), then what each kind is and the section it cites, then a row per student.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::catalog::LESSONS;
use crate::class::Row;
use crate::class::judged::{Judged, Outcome};

/// `ChargedTwice` as the teacher reads it: "charged twice".
pub fn in_words(kind: &str) -> String {
    let mut words = String::new();
    for (i, c) in kind.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            words.push(' ');
        }
        words.extend(c.to_lowercase());
    }
    words
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The kinds the class showed, each with a letter for the table's cells, in the order they
/// are first met (lesson by lesson), and the students who showed it per lesson.
struct Kinds {
    letters: BTreeMap<String, char>,
    /// (lesson, kind) → students.
    students: BTreeMap<(&'static str, String), usize>,
    cites: BTreeMap<String, BTreeSet<String>>,
}

fn kinds(rows: &[Row]) -> Kinds {
    let mut kinds = Kinds {
        letters: BTreeMap::new(),
        students: BTreeMap::new(),
        cites: BTreeMap::new(),
    };
    let mut order: Vec<String> = Vec::new();
    for lesson in LESSONS {
        for row in rows {
            let Some(judged) = row
                .lessons
                .iter()
                .find(|j| j.lesson.number == lesson.number)
            else {
                continue;
            };
            if let Outcome::Failing(found) = &judged.outcome {
                for kind in found {
                    if !order.contains(&kind.name) {
                        order.push(kind.name.clone());
                    }
                    *kinds
                        .students
                        .entry((lesson.number, kind.name.clone()))
                        .or_default() += 1;
                    kinds
                        .cites
                        .entry(kind.name.clone())
                        .or_default()
                        .insert(kind.cites.clone());
                }
            }
        }
    }
    for (n, name) in order.into_iter().enumerate() {
        let letter = char::from_u32('A' as u32 + n as u32).unwrap_or('?');
        kinds.letters.insert(name, letter);
    }
    kinds
}

/// Colours for the kinds, told apart on a screen and in print; they repeat past twelve.
const BROKEN: &str = "#666";
const STOPPED: &str = "#222";

const PALETTE: [&str; 12] = [
    "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#1f78b4", "#b2df8a",
    "#fb9a99", "#cab2d6", "#fdbf6f", "#8dd3c7",
];

fn colour(letter: char) -> &'static str {
    PALETTE[(letter as usize - 'A' as usize) % PALETTE.len()]
}

pub fn page(class: &Path, rows: &[Row]) -> String {
    let kinds = kinds(rows);
    let mut html = String::new();
    html.push_str(concat!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<title>Class report</title>\n<style>\n",
        include_str!("page.css"),
        "</style>\n</head>\n<body>\n"
    ));
    let not_run = rows.iter().filter(|r| !r.ran).count();
    html.push_str(&format!(
        "<h1>Class report</h1>\n<p class=\"about\">{} students, from <code>{}</code>{}. Each \
         student's handlers ran against the lesson's tests; a lesson not started is the \
         exercise as shipped and did not run.</p>\n",
        rows.len(),
        escape(&class.display().to_string()),
        match not_run {
            0 => String::new(),
            n => format!(
                "; {n} not run, for changing files that are not their handlers' (see the \
                 notes)"
            ),
        }
    ));
    html.push_str(&chart(rows, &kinds));
    html.push_str(&legend(&kinds));
    html.push_str(&students(rows, &kinds));
    html.push_str("</body>\n</html>\n");
    html
}

fn chart(rows: &[Row], kinds: &Kinds) -> String {
    let mut html = String::from(
        "<h2>Kinds of violation per lesson</h2>\n<p class=\"about\">Per lesson, how many \
         students solved it, and how many handlers showed each kind of violation (a handler \
         can show several).</p>\n<div class=\"chart\">\n",
    );
    let class_size = rows.iter().filter(|r| r.ran).count().max(1);
    let mut bars = Vec::new();
    for lesson in LESSONS {
        let outcomes: Vec<&Outcome> = (rows.iter())
            .flat_map(|r| r.lessons.iter())
            .filter(|j| j.lesson.number == lesson.number)
            .map(|j| &j.outcome)
            .collect();
        let count = |f: fn(&Outcome) -> bool| outcomes.iter().filter(|o| f(o)).count();
        let mut segments: Vec<(String, String, usize)> = vec![(
            "#1b9e77".into(),
            "solved".into(),
            count(|o| *o == Outcome::Solved),
        )];
        for (name, letter) in &kinds.letters {
            let n = kinds
                .students
                .get(&(lesson.number, name.clone()))
                .copied()
                .unwrap_or(0);
            segments.push((
                colour(*letter).into(),
                format!("{letter}: {}", in_words(name)),
                n,
            ));
        }
        segments.push((
            BROKEN.into(),
            "✗: does not compile".into(),
            count(|o| matches!(o, Outcome::DoesNotCompile(_))),
        ));
        segments.push((
            STOPPED.into(),
            "∞: stopped at its deadline".into(),
            count(|o| matches!(o, Outcome::Stopped(_))),
        ));
        let not_started = count(|o| matches!(o, Outcome::NotStarted | Outcome::Missing));
        bars.push((lesson, segments, not_started));
    }
    // One scale for every bar: the class, or more where handlers showed several kinds.
    let scale = (bars.iter())
        .map(|(_, segments, _)| segments.iter().map(|s| s.2).sum::<usize>())
        .max()
        .unwrap_or(0)
        .max(class_size);
    for (lesson, segments, not_started) in bars {
        let mut bar = String::new();
        for (fill, label, n) in segments.iter().filter(|s| s.2 > 0) {
            let width = 100.0 * *n as f64 / scale as f64;
            let mark = if label == "solved" {
                "✓"
            } else {
                label.split(':').next().unwrap_or("")
            };
            bar.push_str(&format!(
                "<span class=\"seg\" style=\"width:{width:.1}%;background:{fill}\" \
                 title=\"{}: {n}\">{} {n}</span>",
                escape(label),
                escape(mark)
            ));
        }
        html.push_str(&format!(
            "<div class=\"lesson\"><span class=\"name\">{} {}</span>\
             <span class=\"bar\">{bar}</span><span class=\"rest\">{}</span></div>\n",
            lesson.number,
            escape(lesson.key),
            if not_started > 0 {
                format!("{not_started} not started")
            } else {
                String::new()
            },
        ));
    }
    html.push_str("</div>\n");
    html
}

fn legend(kinds: &Kinds) -> String {
    let mut by_letter: Vec<(&char, &String)> = kinds.letters.iter().map(|(k, l)| (l, k)).collect();
    by_letter.sort();
    let mut html = String::from(
        "<h2>The kinds</h2>\n<table class=\"legend\">\n<tr><th></th><th>Kind</th>\
         <th>As the kit names it</th><th>The section its messages cite</th>\
         <th>Handlers</th></tr>\n",
    );
    for (letter, name) in by_letter {
        let handlers: usize = (kinds.students.iter())
            .filter(|((_, k), _)| k == name)
            .map(|(_, n)| n)
            .sum();
        let cites: Vec<String> = kinds.cites[name]
            .iter()
            .filter(|c| !c.is_empty())
            .map(|c| escape(c))
            .collect();
        html.push_str(&format!(
            "<tr><td><span class=\"chip\" style=\"background:{}\">{letter}</span></td>\
             <td>{}</td><td><code>{}</code></td><td>{}</td><td>{handlers}</td></tr>\n",
            colour(*letter),
            escape(&in_words(name)),
            escape(name),
            cites.join("<br>"),
        ));
    }
    html.push_str(&format!(
        "<tr><td><span class=\"chip\" style=\"background:{BROKEN}\">✗</span></td>\
         <td colspan=\"4\">does not compile: the compiler's first error is in the student's \
         note</td></tr>\n<tr><td><span class=\"chip\" style=\"background:{STOPPED}\">∞</span>\
         </td><td colspan=\"4\">stopped at its deadline: a test did not finish (a handler that \
         loops, or waits for ever); the note names it</td></tr>\n"
    ));
    html.push_str("</table>\n");
    html
}

fn students(rows: &[Row], kinds: &Kinds) -> String {
    let mut html = String::from(
        "<h2>Students</h2>\n<table class=\"students\">\n<colgroup><col class=\"who\">",
    );
    for _ in LESSONS {
        html.push_str("<col class=\"cell\">");
    }
    html.push_str(
        "<col class=\"num\"><col class=\"num\"><col class=\"note\"></colgroup>\n\
         <tr><th>Student</th>",
    );
    for lesson in LESSONS {
        html.push_str(&format!(
            "<th title=\"{}\">{}</th>",
            escape(lesson.title),
            lesson.number
        ));
    }
    html.push_str(
        "<th>Solved</th><th title=\"lines added or removed against the solutions, over the \
         lessons started\">± lines</th><th>Note</th></tr>\n",
    );
    for row in rows {
        html.push_str(&format!(
            "<tr><td class=\"who\">{}</td>",
            escape(&row.student)
        ));
        if !row.ran {
            let changed: Vec<String> = row.changes.iter().map(|c| escape(&c.to_string())).collect();
            html.push_str(&format!(
                "<td colspan=\"{}\" class=\"notrun\">not run: it changed files that are not its \
                 handlers' (run with --trust to run it anyway)</td><td></td><td></td>\
                 <td class=\"note\">{}</td></tr>\n",
                LESSONS.len(),
                changed.join("<br>")
            ));
            continue;
        }
        let mut notes = Vec::new();
        if !row.changes.is_empty() {
            let changed: Vec<String> = row.changes.iter().map(|c| escape(&c.to_string())).collect();
            notes.push(format!(
                "run with --trust, though it changed {}",
                changed.join(", ")
            ));
        }
        for judged in &row.lessons {
            html.push_str(&cell(judged, kinds));
            match &judged.outcome {
                Outcome::DoesNotCompile(error) => {
                    notes.push(format!("{}: {}", judged.lesson.number, escape(error)))
                }
                Outcome::Stopped(test) => notes.push(format!(
                    "{}: <code>{}</code> did not finish",
                    judged.lesson.number,
                    escape(test)
                )),
                Outcome::NotJudged(why) => {
                    notes.push(format!("{}: {}", judged.lesson.number, escape(why)))
                }
                _ => {}
            }
        }
        let solved = row
            .lessons
            .iter()
            .filter(|j| j.outcome == Outcome::Solved)
            .count();
        let lines: usize = row
            .lessons
            .iter()
            .filter_map(|j| j.lines_from_solution)
            .sum();
        html.push_str(&format!(
            "<td class=\"num\">{solved}</td><td class=\"num\">{lines}</td>\
             <td class=\"note\">{}</td></tr>\n",
            notes.join("<br>")
        ));
    }
    html.push_str(
        "</table>\n<p class=\"about\">✓ solved · letters, ✗ and ∞: as in the table of kinds \
         above · blank: not started (the exercise as shipped) · –: no exercise folder. Hover a \
         cell for its lines from the solution.</p>\n",
    );
    html
}

fn cell(judged: &Judged, kinds: &Kinds) -> String {
    let lines = judged
        .lines_from_solution
        .map(|n| format!("{n} lines from the solution"))
        .unwrap_or_default();
    let (class, shown) = match &judged.outcome {
        Outcome::Solved => ("solved", "✓".to_string()),
        Outcome::Failing(found) => {
            let chips: Vec<String> = (found.iter())
                .map(|k| {
                    let letter = kinds.letters.get(&k.name).copied().unwrap_or('?');
                    format!(
                        "<span class=\"chip\" style=\"background:{}\">{letter}</span>",
                        colour(letter)
                    )
                })
                .collect();
            ("failing", chips.join(""))
        }
        Outcome::DoesNotCompile(_) => ("broken", "✗".to_string()),
        Outcome::Stopped(_) => ("broken", "∞".to_string()),
        Outcome::NotJudged(_) => ("broken", "?".to_string()),
        Outcome::NotStarted => ("", String::new()),
        Outcome::Missing => ("", "–".to_string()),
    };
    format!(
        "<td class=\"{class}\" title=\"{}: {}{}\">{shown}</td>",
        judged.lesson.number,
        judged.outcome.word(),
        if lines.is_empty() {
            String::new()
        } else {
            format!(", {lines}")
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_reads_as_words() {
        assert_eq!(
            in_words("DuplicateSurfacedAsError"),
            "duplicate surfaced as error"
        );
    }
}
