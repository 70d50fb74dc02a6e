//! Never the answer before the attempt. A failure message diagnoses, a hint nudges, the chapter
//! explains; the fix itself waits for the student in one place, the chapter's "The solution,
//! after your attempt", which says so in its first line. These checks keep it there.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

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

fn source_files(dir: &Path) -> Vec<PathBuf> {
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

/// Before its solution section, a chapter shows no code that holds what the fix adds: an SQL
/// clause or predicate of the solution's that the shipped exercise lacks (`ON CONFLICT DO
/// NOTHING`, `WHERE fence = $mine`), a setting the solution changes (`lock_timeout`), or an
/// SQLSTATE the solution branches on, written as code (`"55P03" |`, `serialization_failure`).
/// Code is what the chapter types as code, in a listing or a code span, and the comments of what
/// it includes from a source file (a scenario's doc comment is the chapter speaking; the
/// scenario's own statements, a holder's `FOR UPDATE`, are the test's). Prose may name the
/// chapter's subject (SERIALIZABLE, 40001), and so may its title (chapter 4's `FOR UPDATE`); the
/// recordings of what the tests printed (`.snap`, `check-output.txt`, the diagrams drawn from
/// them) show the tests' sessions, not the fix.
#[test]
fn no_code_before_the_solution_section_holds_a_clause_the_fix_adds() {
    let root = workspace_root();
    let mut problems = Vec::new();
    for lesson in catalog::LESSONS {
        let mut fix = Fix::of(&root, lesson);
        let title = plain(&tokens(&[(0, lesson.title.to_string())]));
        fix.clauses
            .retain(|clause| !title.windows(clause.len()).any(|w| w == clause));
        let path = root.join(lesson.chapter());
        let chapter = std::fs::read_to_string(&path).unwrap();
        let sections = citations::sections(&chapter);
        let Some(solution) = sections.iter().find(|s| s.title == SOLUTION_SECTION) else {
            continue; // the first test reports a chapter without one
        };
        for code in code_before(&path, &chapter, solution.lines.start) {
            for (line, fragment) in fix.shown_in(&code) {
                problems.push(format!(
                    "{}:{line}: {} shows `{fragment}`, in \"{}\": the solution adds it and the \
                     shipped exercise lacks it. Move it after the attempt, into \
                     \"{SOLUTION_SECTION}\", or, as a nudge in words, into lessons/{}/hints.md",
                    lesson.chapter(),
                    code.what,
                    innermost(&sections, line - 1).map_or("", |s| s.title.as_str()),
                    lesson.folder,
                ));
            }
        }
    }
    problems.dedup(); // two spans on one line, each the same fragment
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What a lesson's solution adds to the code a student starts from, in the forms a chapter
/// could show it.
struct Fix {
    /// Token sequences of its SQL: runs of keywords, and predicates (`fence = $`).
    clauses: BTreeSet<Vec<String>>,
    /// The settings its SQL changes: `SET LOCAL lock_timeout …` names the recipe by its name.
    settings: BTreeSet<String>,
    /// The SQLSTATEs its code names, with their condition names where PostgreSQL has one.
    sqlstates: Vec<(String, Option<&'static str>)>,
}

impl Fix {
    fn of(root: &Path, lesson: &catalog::Lesson) -> Fix {
        // The exercise as shipped (the runner's copy), whatever a student has written since.
        let exercise =
            source_files(&(root.join("lessons/support/runner/shipped")).join(lesson.folder));
        let solution = source_files(&root.join("solutions").join(lesson.folder));
        let (before, after) = (Sql::of(&exercise), Sql::of(&solution));
        let before_states = sqlstates(&exercise);
        Fix {
            clauses: after.clauses.difference(&before.clauses).cloned().collect(),
            settings: after
                .settings
                .difference(&before.settings)
                .cloned()
                .collect(),
            sqlstates: (sqlstates(&solution).difference(&before_states))
                .map(|code| (code.clone(), condition_name(code)))
                .collect(),
        }
    }

    /// The line and the text of every fragment of the fix that `code` shows.
    fn shown_in(&self, code: &Code) -> Vec<(usize, String)> {
        let tokens = tokens(&code.lines);
        let words = plain(&tokens);
        // Where each clause occurs; clauses that overlap or touch are one stretch of code, so
        // that a solution's `ON CONFLICT (id) DO NOTHING`, two clauses, is reported once when a
        // chapter writes `ON CONFLICT DO NOTHING`.
        let mut hits: Vec<(usize, usize)> = Vec::new();
        for clause in &self.clauses {
            for at in 0..words.len().saturating_sub(clause.len() - 1) {
                if words[at..at + clause.len()] == clause[..] {
                    hits.push((at, at + clause.len()));
                }
            }
        }
        hits.sort();
        let mut stretches: Vec<(usize, usize)> = Vec::new();
        for (at, end) in hits {
            match stretches.last_mut() {
                Some((_, last)) if at <= *last => *last = end.max(*last),
                _ => stretches.push((at, end)),
            }
        }
        let mut found: Vec<(usize, String)> = (stretches.iter())
            .map(|&(at, end)| (tokens[at].0, words[at..end].join(" ")))
            .collect();
        for (line, word) in &tokens {
            if self.settings.contains(word) {
                found.push((*line, word.clone()));
            }
        }
        for (sqlstate, name) in &self.sqlstates {
            found.extend(code.sqlstate(sqlstate, *name));
        }
        found.sort();
        found.dedup();
        found
    }
}

/// The clauses and settings of the SQL in `files`: `.sql` files without their comments, and the
/// string literals of `.rs` files that begin as a statement does.
#[derive(Default)]
struct Sql {
    clauses: BTreeSet<Vec<String>>,
    settings: BTreeSet<String>,
}

impl Sql {
    fn of(files: &[PathBuf]) -> Sql {
        let mut sql = Sql::default();
        for file in files {
            let code = split_comments(file).0;
            let statements = if file.extension().is_some_and(|e| e == "sql") {
                vec![code]
            } else {
                string_literals(&code)
                    .into_iter()
                    .filter(|s| is_statement(s))
                    .collect()
            };
            for statement in statements.iter().flat_map(|s| s.split(';')) {
                let words = plain(&tokens(&[(0, statement.to_string())]));
                sql.clauses.extend(clauses(&words));
                // `SET [LOCAL] name`, a statement of its own (not an UPDATE's SET).
                let mut rest = words.iter().skip_while(|w| *w == BREAK);
                if rest.next().is_some_and(|w| w == "SET") {
                    let name = rest.find(|w| !matches!(w.as_str(), "LOCAL" | "SESSION"));
                    sql.settings.extend(name.filter(|w| is_name(w)).cloned());
                }
            }
        }
        sql
    }
}

fn is_statement(literal: &str) -> bool {
    let literal = literal.trim_start();
    let first = &literal[..literal
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(literal.len())];
    let statements = [
        "SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "SET", "BEGIN", "LOCK",
    ];
    statements.contains(&first)
}

/// Every stretch of two or more keywords (`ON CONFLICT`, `CONFLICT DO NOTHING`, …), and every
/// comparison of a column (`recovery_point = 'started'`).
fn clauses(words: &[String]) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut start = 0;
    for end in 0..=words.len() {
        if end < words.len() && is_keyword(&words[end]) {
            continue;
        }
        for a in start..end {
            found.extend((a + 2..=end).map(|b| words[a..b].to_vec()));
        }
        start = end + 1;
    }
    for w in words.windows(3) {
        if is_name(&w[0]) && COMPARISONS.contains(&w[1].as_str()) && w[2] != BREAK {
            found.push(w.to_vec());
        }
    }
    found
}

const BREAK: &str = "·";
const COMPARISONS: [&str; 7] = ["=", "<", ">", "<=", ">=", "<>", "!="];

fn is_keyword(word: &str) -> bool {
    word.len() > 1 && word.chars().all(|c| c.is_ascii_uppercase())
}

fn is_name(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
}

/// SQL's tokens, each with its line: words, parameters (every `$1` or `$mine` is `$`), quoted
/// literals and comparisons. Anything else (parentheses, commas, the host language's quotes)
/// is a break, which no clause spans.
fn tokens(lines: &[(usize, String)]) -> Vec<(usize, String)> {
    let mut found: Vec<(usize, String)> = Vec::new();
    for (line, text) in lines {
        // A Rust string continued with `\` at the end of a line is one string.
        let text = text.trim_end().trim_end_matches('\\');
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            let (token, len) = if c.is_ascii_alphanumeric() || c == '_' || c == '$' {
                let len = 1 + rest[1..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len() - 1);
                let word = if c == '$' { "$" } else { &rest[..len] };
                (word.to_string(), len)
            } else if c == '\'' && rest[1..].contains('\'') {
                let len = 2 + rest[1..].find('\'').unwrap();
                (rest[..len].to_string(), len)
            } else if "<>=!".contains(c) {
                let len = rest
                    .find(|c: char| !"<>=!".contains(c))
                    .unwrap_or(rest.len());
                let op = &rest[..len];
                let op = if COMPARISONS.contains(&op) { op } else { BREAK };
                (op.to_string(), len)
            } else {
                let token = if c.is_whitespace() { "" } else { BREAK };
                (token.to_string(), c.len_utf8())
            };
            rest = &rest[len..];
            let repeated_break = token == BREAK && found.last().is_some_and(|(_, t)| t == BREAK);
            if !token.is_empty() && !repeated_break {
                found.push((*line, token));
            }
        }
    }
    found
}

fn plain(tokens: &[(usize, String)]) -> Vec<String> {
    tokens.iter().map(|(_, t)| t.clone()).collect()
}

/// The string literals of Rust code, raw ones included.
fn string_literals(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let code = code.replace("'\"'", "' '"); // a quote as a char is no string
    let mut rest = code.as_str();
    while let Some(at) = rest.find('"') {
        let raw = rest[..at].ends_with("r#");
        let close = if raw { "\"#" } else { "\"" };
        let body = &rest[at + 1..];
        let mut end = 0;
        while let Some(next) = body[end..].find(close) {
            end += next;
            if raw || !body[..end].ends_with('\\') || body[..end].ends_with("\\\\") {
                break;
            }
            end += 1;
        }
        found.push(body[..end].replace("\\\n", " "));
        rest = body.get(end + close.len()..).unwrap_or_default();
    }
    found
}

/// The SQLSTATEs a Rust file's code names as string literals (`"40001"`).
fn sqlstates(files: &[PathBuf]) -> BTreeSet<String> {
    let is_sqlstate = |s: &str| {
        s.len() == 5
            && s.chars()
                .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
            && s.chars().any(|c| c.is_ascii_digit())
    };
    (files.iter())
        .filter(|file| file.extension().is_some_and(|e| e == "rs"))
        .flat_map(|file| string_literals(&split_comments(file).0))
        .filter(|s| is_sqlstate(s))
        .collect()
}

/// PostgreSQL's name for an SQLSTATE (appendix A of its manual), for the codes the solutions
/// branch on: `serialization_failure` in a code span is the code, written as code.
fn condition_name(code: &str) -> Option<&'static str> {
    Some(match code {
        "23505" => "unique_violation",
        "40001" => "serialization_failure",
        "40P01" => "deadlock_detected",
        "55P03" => "lock_not_available",
        "57014" => "query_canceled",
        _ => return None,
    })
}

/// Some code of a chapter: a listing, a code span or an include, each line with the chapter's
/// line it stands on (an include's lines all stand on the include's).
struct Code {
    what: String,
    lines: Vec<(usize, String)>,
}

impl Code {
    /// Where the code shows `sqlstate` as code: a code span that is the code or its name; in a
    /// listing, its name, or the code as a literal branched on (`"40001" |`, `== "40001"`,
    /// `"40001" =>`). A listing that only injects it or says it (`fails with 40001`) passes.
    fn sqlstate(&self, sqlstate: &str, name: Option<&str>) -> Vec<(usize, String)> {
        if self.what == SPAN {
            let span = (self.lines.iter())
                .map(|(_, l)| l.trim())
                .collect::<Vec<_>>();
            let span = span.join(" ");
            let shown = span == sqlstate || Some(span.as_str()) == name;
            return shown.then(|| (self.lines[0].0, span)).into_iter().collect();
        }
        let quoted = format!("\"{sqlstate}\"");
        let branched = |text: &str| {
            text.match_indices(&quoted).any(|(at, _)| {
                let before = text[..at].trim_end();
                let after = text[at + quoted.len()..].trim_start();
                before.ends_with('|')
                    || before.ends_with("==")
                    || after.starts_with('|')
                    || after.starts_with("=>")
            })
        };
        let mut found = Vec::new();
        for (line, text) in &self.lines {
            if branched(text) {
                found.push((*line, format!("\"{sqlstate}\"")));
            }
            if let Some(name) = name.filter(|name| words(text).any(|w| w == *name)) {
                found.push((*line, name.to_string()));
            }
        }
        found
    }
}

const SPAN: &str = "a code span";

/// The code of a chapter above line `end` (counted from 0): its fenced listings, its code spans,
/// and what its includes of source files pull in.
fn code_before(chapter: &Path, text: &str, end: usize) -> Vec<Code> {
    let mut found = Vec::new();
    let mut listing: Option<Code> = None;
    let mut paragraph: Vec<(usize, String)> = Vec::new();
    let mut drawn = false; // inside a diagram drawn from a recording
    for (n, line) in text.lines().enumerate().take(end) {
        drawn = (drawn || line.starts_with("<!-- diagram: ")) && line != "<!-- /diagram -->";
        if drawn {
            continue;
        }
        let at = n + 1;
        let fence = line.trim_start().starts_with("```");
        let include = line
            .split("{{#include ")
            .nth(1)
            .and_then(|r| r.split_once("}}"));
        if fence || include.is_some() || line.trim().is_empty() {
            found.extend(spans(&std::mem::take(&mut paragraph)));
        }
        if fence {
            match listing.take() {
                Some(code) => found.push(code),
                None => {
                    let what = format!("the listing from line {at}");
                    listing = Some(Code {
                        what,
                        lines: Vec::new(),
                    });
                }
            }
        } else if let Some((target, _)) = include {
            found.extend(included(chapter, target.trim(), at));
        } else if let Some(code) = &mut listing {
            code.lines.push((at, line.to_string()));
        } else if !line.trim().is_empty() {
            paragraph.push((at, line.to_string()));
        }
    }
    found.extend(spans(&paragraph));
    found
}

/// The code spans of a paragraph, which may run from one line to the next.
fn spans(paragraph: &[(usize, String)]) -> Vec<Code> {
    let Some(&(first, _)) = paragraph.first() else {
        return Vec::new();
    };
    let text = (paragraph.iter())
        .map(|(_, l)| l.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = Vec::new();
    let mut offset = 0;
    for (i, piece) in text.split('`').enumerate() {
        if i % 2 == 1 {
            let start = first + text[..offset].matches('\n').count();
            let lines = (piece.lines().enumerate())
                .map(|(k, l)| (start + k, l.to_string()))
                .collect();
            found.push(Code {
                what: SPAN.to_string(),
                lines,
            });
        }
        offset += piece.len() + 1;
    }
    found
}

/// The comments of what `{{#include target}}` on line `at` pulls in: a file, an anchor's region of
/// it (without its anchor lines), or a range of its lines. Nothing for a recording of what the
/// tests printed, nor for a target that finds nothing (book.rs reports that).
fn included(chapter: &Path, target: &str, at: usize) -> Option<Code> {
    let (path, selector) = target.split_once(':').unwrap_or((target, ""));
    if path.ends_with(".snap") || path.ends_with(".txt") {
        return None;
    }
    let text = std::fs::read_to_string(chapter.parent()?.join(path)).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    let region: Vec<&str> = if selector.is_empty() {
        lines
    } else if let Ok(first) = selector.split(':').next()?.parse::<usize>() {
        lines.into_iter().skip(first.saturating_sub(1)).collect()
    } else {
        let begin = |l: &&str| l.trim_end().ends_with(&format!("ANCHOR: {selector}"));
        let end = |l: &&str| l.trim_end().ends_with(&format!("ANCHOR_END: {selector}"));
        (lines.iter().skip_while(|l| !begin(l)).skip(1))
            .take_while(|l| !end(l))
            .filter(|l| !l.contains("ANCHOR: ") && !l.contains("ANCHOR_END: "))
            .copied()
            .collect()
    };
    let marker = if path.ends_with(".sql") { "--" } else { "//" };
    let comments = (region.into_iter())
        .filter_map(|l| l.find(marker).map(|i| (at, l[i..].to_string())))
        .collect();
    Some(Code {
        what: format!("a comment that line {at} includes ({target})"),
        lines: comments,
    })
}

/// What the check reads as code, and the prose it leaves alone, on a chapter made up here.
#[test]
fn a_fix_is_found_in_spans_listings_and_branches_and_not_in_prose() {
    let sql =
        "INSERT INTO t VALUES ($1) ON CONFLICT DO NOTHING; UPDATE t SET a = 1 WHERE fence = $2";
    let fix = Fix {
        clauses: clauses(&plain(&tokens(&[(0, sql.to_string())])))
            .into_iter()
            .collect(),
        settings: BTreeSet::from(["lock_timeout".to_string()]),
        sqlstates: vec![("40001".to_string(), condition_name("40001"))],
    };
    let chapter = "\
Prose may name ON CONFLICT DO NOTHING, lock_timeout and 40001, and a span may say `40001 at COMMIT`.
A span may run on: (`ON CONFLICT
DO NOTHING`), and `WHERE fence = $mine` is code.
```sql
SET LOCAL lock_timeout = '2s';
```
A retry of `serialization_failure`:
```rust
Some(\"40001\" | \"40P01\") => {}
inject((3, \"40001\")); // a test that injects it shows no fix
```
";
    let found: Vec<(usize, String)> = (code_before(Path::new("book/src/x.md"), chapter, 99))
        .iter()
        .flat_map(|code| fix.shown_in(code))
        .collect();
    let expected = [
        (2, "ON CONFLICT DO NOTHING"),
        (3, "fence = $"),
        (5, "lock_timeout"),
        (7, "serialization_failure"),
        (9, "\"40001\""),
    ];
    let expected: Vec<(usize, String)> = (expected.iter())
        .map(|&(line, text)| (line, text.to_string()))
        .collect();
    assert_eq!(found, expected);
}

/// A stepper shows the statements a recording holds, and a recording of the solution shows the
/// fix statement by statement: before "The solution, after your attempt" a chapter steps through
/// the shipped exercise's recordings (`statements/exercise_…`), never the solution's
/// (`statements/solution_…`). Any other recording (a half-way fix, an anomaly on the schema
/// alone) is read as code: none of its statements may hold a clause the fix adds.
#[test]
fn no_stepper_before_the_solution_section_plays_the_solution() {
    let root = workspace_root();
    let mut problems = Vec::new();
    for lesson in catalog::LESSONS {
        let fix = Fix::of(&root, lesson);
        let path = root.join(lesson.chapter());
        let chapter = std::fs::read_to_string(&path).unwrap();
        let sections = citations::sections(&chapter);
        let Some(solution) = sections.iter().find(|s| s.title == SOLUTION_SECTION) else {
            continue; // the first test reports a chapter without one
        };
        for (n, line) in chapter.lines().enumerate().take(solution.lines.start) {
            let Some(recording) = recording_included(line) else {
                continue;
            };
            let file = recording.rsplit('/').next().unwrap_or(recording);
            let code = Code {
                what: format!("the stepper of {file}"),
                lines: statements_of(&path, recording)
                    .into_iter()
                    .map(|sql| (n + 1, sql))
                    .collect(),
            };
            let shown: Vec<String> = fix.shown_in(&code).into_iter().map(|(_, f)| f).collect();
            let section = innermost(&sections, n).map_or("", |s| s.title.as_str());
            if file.starts_with("solution_") {
                problems.push(format!(
                    "{}:{}: a stepper plays the solution's recording {file} in \"{section}\", \
                     before \"{SOLUTION_SECTION}\"{}: step through the shipped exercise's \
                     recording there, and the solution's after the attempt",
                    lesson.chapter(),
                    n + 1,
                    match shown.is_empty() {
                        true => String::new(),
                        false => format!(" (it shows `{}`)", shown.join("`, `")),
                    }
                ));
            } else if !file.starts_with("exercise_") && !shown.is_empty() {
                problems.push(format!(
                    "{}:{}: {} shows `{}`, in \"{section}\": the solution adds it and the \
                     shipped exercise lacks it",
                    lesson.chapter(),
                    n + 1,
                    code.what,
                    shown.join("`, `")
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The recording `{{#include …/statements/x.snap:5:}}` on `line` includes, if it includes one.
fn recording_included(line: &str) -> Option<&str> {
    let target = line.split("{{#include ").nth(1)?.split_once("}}")?.0.trim();
    let path = target.split(':').next()?;
    (path.contains("/statements/") && path.ends_with(".snap")).then_some(path)
}

/// The SQL of every statement a recording holds.
fn statements_of(chapter: &Path, recording: &str) -> Vec<String> {
    let file = chapter.parent().unwrap().join(recording);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    // An insta snapshot: a header between `---` lines, then the JSON.
    let json = text.splitn(3, "---\n").nth(2).unwrap_or(&text);
    let recorded: serde_json::Value = serde_json::from_str(json)
        .unwrap_or_else(|e| panic!("{}: not a recording of statements: {e}", file.display()));
    (recorded["statements"].as_array().into_iter().flatten())
        .filter_map(|statement| statement["sql"].as_str())
        .map(str::to_string)
        .collect()
}

const BREAK_SECTION: &str = "Break it yourself";
const BREAK_ANSWER: &str = "<!-- break-answer:";
const RE_DERIVED: &str = "re-derived";

/// "Break it yourself" asks the reader for a race of their own, and the chapter must not have
/// printed its answer already. Each such section names, in a `<!-- break-answer: TEST … -->`
/// marker, the shipped permutations that answer what it asks: each a permutation of the lesson's
/// specs that the shipped exercise fails (`check-output.txt`). Above the section the chapter shows
/// none of them: not the spec's lines that play it, nor its trace, nor its statements, nor its
/// diagram. Or it says plainly that the reader re-derives a race it has shown: the marker reads
/// `<!-- break-answer: re-derived TEST -->`, and the section's prose says "re-derive".
#[test]
fn break_it_yourself_asks_for_a_race_the_chapter_has_not_shown() {
    let root = workspace_root();
    let mut problems = Vec::new();
    let mut sections_seen = 0;
    for lesson in catalog::LESSONS {
        let path = root.join(lesson.chapter());
        let chapter = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = chapter.lines().collect();
        let sections = citations::sections(&chapter);
        let Some(section) = sections.iter().find(|s| s.title == BREAK_SECTION) else {
            continue;
        };
        sections_seen += 1;
        let at = |n: usize| format!("{}:{}", lesson.chapter(), n + 1);
        let body = &lines[section.lines.clone()];
        let Some(marker) = (body.iter())
            .find_map(|line| line.split(BREAK_ANSWER).nth(1)?.split_once("-->"))
            .map(|(words, _)| words.split_whitespace().collect::<Vec<_>>())
        else {
            problems.push(format!(
                "{}: \"{BREAK_SECTION}\" does not say which shipped permutation answers it: \
                 write `{BREAK_ANSWER} TEST -->` in it",
                at(section.lines.start)
            ));
            continue;
        };
        let re_derived = marker.contains(&RE_DERIVED);
        let says_so = body.iter().any(|line| line.contains("re-derive"));
        if re_derived && !says_so {
            problems.push(format!(
                "{}: its marker says the reader re-derives a race the chapter shows, and its \
                 prose never says so (\"re-derive\")",
                at(section.lines.start)
            ));
        }
        let failing = failing_tests(&root, lesson);
        for test in marker.iter().filter(|w| **w != RE_DERIVED) {
            if !failing.contains(*test) {
                problems.push(format!(
                    "{}: its answer {test} is not a test the shipped exercise fails \
                     (lessons/{}/check-output.txt)",
                    at(section.lines.start),
                    lesson.folder
                ));
                continue;
            }
            let Some(spec_test) = spec_test_of(lesson, test) else {
                problems.push(format!(
                    "{}: its answer {test} is played by no spec of the lesson, and `break` \
                     plays specs",
                    at(section.lines.start)
                ));
                continue;
            };
            let shown = (lines.iter().enumerate().take(section.lines.start))
                .find(|(_, line)| shows_the_answer(&path, line, test, &spec_test));
            match shown {
                Some((n, line)) if !re_derived => problems.push(format!(
                    "{}: \"{BREAK_SECTION}\" asks for the race of {test}, and the chapter shows \
                     it at line {} (`{}`): ask for a race the chapter has not shown, or say \
                     plainly that the reader re-derives it (`{BREAK_ANSWER} {RE_DERIVED} \
                     {test} -->`)",
                    at(section.lines.start),
                    n + 1,
                    line.trim()
                )),
                _ => {}
            }
        }
    }
    assert!(sections_seen > 0, "no chapter has \"{BREAK_SECTION}\"");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The tests the shipped exercise fails, as `check-output.txt` names them.
fn failing_tests(root: &Path, lesson: &catalog::Lesson) -> BTreeSet<String> {
    let file = root
        .join("lessons")
        .join(lesson.folder)
        .join("check-output.txt");
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    (text.lines())
        .filter_map(|line| line.strip_prefix("── "))
        .map(|name| name.trim().to_string())
        .collect()
}

/// The name the spec's `test` line gives the permutation that plays the lesson's `test`: its own
/// name, or, where the lesson picks a shared spec's permutation under a name of its own, the
/// name there. None when no spec of the lesson plays it.
fn spec_test_of(lesson: &catalog::Lesson, test: &str) -> Option<String> {
    let checks = verify::Lesson::find(lesson.number).ok()?;
    (checks.spec_of)(test).map(|(_, spec_test)| spec_test.to_string())
}

/// Whether `line` of a chapter shows the race of `test` (`spec_test` in its spec): includes its
/// trace, its statements or its diagram, or the lines of a spec that play it.
fn shows_the_answer(chapter: &Path, line: &str, test: &str, spec_test: &str) -> bool {
    let recorded = format!("_{test}.snap");
    if line.starts_with("<!-- diagram: ") && line.contains(&recorded) {
        return true;
    }
    let Some(target) = line
        .split("{{#include ")
        .nth(1)
        .and_then(|r| r.split_once("}}"))
        .map(|(t, _)| t.trim())
    else {
        return false;
    };
    let (file, anchor) = target.split_once(':').unwrap_or((target, ""));
    if file.ends_with(&recorded) {
        return true;
    }
    if !file.ends_with(".spec") {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(chapter.parent().unwrap().join(file)) else {
        return false; // book.rs reports an include that finds nothing
    };
    let region: Vec<&str> = if anchor.is_empty() {
        text.lines().collect()
    } else {
        (text.lines())
            .skip_while(|l| !l.trim_end().ends_with(&format!("ANCHOR: {anchor}")))
            .take_while(|l| !l.trim_end().ends_with(&format!("ANCHOR_END: {anchor}")))
            .collect()
    };
    region
        .iter()
        .any(|l| l.trim() == format!("test {spec_test}"))
}
