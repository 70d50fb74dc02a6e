//! Never the answer before the attempt. A failure message diagnoses, a hint nudges, the chapter
//! explains; the fix itself waits for the student in one place, the chapter's "The solution,
//! after your attempt", which says so in its first line. These checks keep it there.

use std::collections::BTreeSet;
use std::path::Path;

use verify::citations::{self, Section};
use verify::workspace_root;

const SOLUTION_SECTION: &str = "The solution, after your attempt";
const SOLUTION_LISTING: &str = "{{#include ../../solutions/";
const AFTER_AN_ATTEMPT: &str = "Read this once your own fix passes";

/// Every listing of a solution is in the chapter's solution section, which opens by saying it is
/// for after an attempt; and every section a failure message cites comes before it, so that the
/// message sends the student to the problem, never to the answer.
#[test]
fn the_sections_messages_cite_explain_the_problem_and_the_solution_waits_until_after() {
    let root = workspace_root();
    let citations = citations::all();
    let mut problems = Vec::new();
    for lesson in catalog::LESSONS {
        let chapter = std::fs::read_to_string(root.join(lesson.chapter())).unwrap();
        let lines: Vec<&str> = chapter.lines().collect();
        let sections = citations::sections(&chapter);
        let Some(solution) = sections.iter().find(|s| s.title == SOLUTION_SECTION) else {
            problems.push(format!("{}: no \"{SOLUTION_SECTION}\"", lesson.chapter()));
            continue;
        };
        let opening = lines[solution.lines.clone()].iter().skip(1).take(3);
        if !opening
            .clone()
            .any(|line| line.starts_with(AFTER_AN_ATTEMPT))
        {
            problems.push(format!(
                "{}: \"{SOLUTION_SECTION}\" does not open by saying \"{AFTER_AN_ATTEMPT}…\"",
                lesson.chapter()
            ));
        }
        for (n, line) in lines.iter().enumerate() {
            if line.contains(SOLUTION_LISTING) && !solution.lines.contains(&n) {
                problems.push(format!(
                    "{}:{}: a solution's listing outside \"{SOLUTION_SECTION}\", in \"{}\"",
                    lesson.chapter(),
                    n + 1,
                    innermost(&sections, n).map_or("", |s| s.title.as_str())
                ));
            }
        }
        let cited: BTreeSet<&str> = (citations.iter())
            .filter(|c| c.lesson == lesson.number)
            .map(|c| c.section.as_str())
            .collect();
        for title in cited {
            let Some(section) = sections.iter().find(|s| s.title == title) else {
                continue; // book.rs reports a citation of no heading
            };
            if section.lines.start >= solution.lines.start {
                problems.push(format!(
                    "{}: messages cite \"{title}\", which is in or after \"{SOLUTION_SECTION}\": \
                     a message must send the student to the problem, not to the answer",
                    lesson.chapter()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The smallest section holding line `n`.
fn innermost(sections: &[Section], n: usize) -> Option<&Section> {
    (sections.iter())
        .filter(|s| s.lines.contains(&n))
        .max_by_key(|s| s.level)
}

/// An exercise's comments state the task, never the fix: no comment names a constant, an SQL
/// keyword or a snake_case or CamelCase name that the solution's code adds and the exercise's
/// code does not have, and no `code span` in a comment names anything the solution adds.
#[test]
fn no_exercise_comment_names_its_fix() {
    let root = workspace_root();
    let mut problems = Vec::new();
    for lesson in catalog::LESSONS {
        // The exercise as shipped (the runner's copy), whatever a student has written since.
        let exercise = root
            .join("lessons/support/runner/shipped")
            .join(lesson.folder);
        let solution = root.join("solutions").join(lesson.folder);
        let (mut exercise_code, mut solution_code) = (String::new(), String::new());
        let mut comments = Vec::new();
        for file in source_files(&exercise) {
            let (code, said) = split_comments(&file);
            exercise_code += &code;
            comments.extend(said.into_iter().map(|(n, text)| (file.clone(), n, text)));
            let twin = solution.join(file.strip_prefix(&exercise).unwrap());
            if twin.exists() {
                solution_code += &split_comments(&twin).0;
            }
        }
        let before: BTreeSet<&str> = words(&exercise_code).collect();
        let added: BTreeSet<&str> = words(&solution_code)
            .filter(|w| !before.contains(w))
            .collect();
        for (file, n, text) in &comments {
            let named = words(text).filter(|w| added.contains(w) && looks_like_code(w));
            let spans = code_spans(text)
                .flat_map(words)
                .filter(|w| added.contains(w));
            let named: BTreeSet<&str> = named.chain(spans).collect();
            if !named.is_empty() {
                problems.push(format!(
                    "{}:{n}: the comment names {named:?}, which the solution's code adds: {}",
                    file.strip_prefix(&root).unwrap_or(file).display(),
                    text.trim()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn source_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for folder in ["src", "migrations"] {
        let Ok(entries) = std::fs::read_dir(dir.join(folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "rs" || e == "sql") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A file's code (comments removed) and its comments, each with its line number.
fn split_comments(file: &Path) -> (String, Vec<(usize, String)>) {
    let text = std::fs::read_to_string(file).unwrap();
    let marker = if file.extension().is_some_and(|e| e == "sql") {
        "--"
    } else {
        "//"
    };
    let (mut code, mut comments) = (String::new(), Vec::new());
    for (n, line) in text.lines().enumerate() {
        match line.find(marker) {
            Some(at) => {
                code.push_str(&line[..at]);
                comments.push((n + 1, line[at..].to_string()));
            }
            None => code.push_str(line),
        }
        code.push('\n');
    }
    (code, comments)
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.len() > 1 && !w.starts_with(|c: char| c.is_ascii_digit()))
}

/// A word that can only be code in English prose: `FOR`, `BATCH_LIMIT`, `rows_affected`,
/// `AlreadyApplied`.
fn looks_like_code(word: &str) -> bool {
    let upper = word.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    let camel = word.starts_with(|c: char| c.is_ascii_uppercase())
        && word.chars().skip(1).any(|c| c.is_ascii_uppercase());
    upper || camel || word.contains('_')
}

/// The text between backquotes.
fn code_spans(text: &str) -> impl Iterator<Item = &str> {
    text.split('`').skip(1).step_by(2)
}
