//! A number of tests in prose is data. "Four pass" is a claim about a lesson's test list, which
//! grows: so every number of tests a chapter or an instructor's page states carries a marker
//! that says what it counts, and this check counts it from the data and compares.
//!
//! ```text
//! Run the tests. <!-- count: passing -->Four pass:
//! <!-- count: passing of all -->Nine of the nineteen pass
//! (<!-- count: named -->two tests: `a_retry_…` and `a_request_…`)
//! <!-- count: fails derived-key-in-one-transaction -->Four tests fail
//! <!-- count: 01 failing -->   (on a page that is not lesson 01's own)
//! ```
//!
//! - `all`: every test of the lesson, a parametrised test once per case (the lesson's test list,
//!   as `verify::Lesson::tests` has it from the lesson's contract);
//! - `failing`: the tests its shipped exercise fails, as `check-output.txt` names them (CI's
//!   `.ci/check-output` holds that file to what `cargo workbook check` prints);
//! - `passing`: the rest;
//! - `named`: the tests named in code spans from the marker to the end of its paragraph or list
//!   item (each a test of the lesson, or a parametrised test's name);
//! - `fails NAME`: the tests the wrong fix `lessons/NN-…/wrong-fixes/NAME.patch` fails, as its
//!   header's `fails:` line lists them (the full sweep holds that line to what the suite did).
//!
//! A phrase that states a number of tests without a marker is refused too, so that a new count
//! cannot be written unchecked. Numbers of workers, rows or attempts are not counts of tests and
//! need none.

use std::collections::BTreeSet;
use std::path::Path;

use verify::workspace_root;

#[test]
fn every_number_of_tests_the_book_states_is_what_its_marker_counts() {
    let root = workspace_root();
    let mut problems = Vec::new();
    let mut marked = 0;
    for page in book_pages(&root.join("book/src")) {
        let text = std::fs::read_to_string(&page).unwrap();
        let shown = page.strip_prefix(&root).unwrap().display().to_string();
        let found = check_page(&text, lesson_of(&page).as_deref(), &Data);
        marked += found.marked;
        problems.extend(found.problems.into_iter().map(|p| format!("{shown}:{p}")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        marked > 10,
        "only {marked} marked counts: is the parsing broken?"
    );
}

/// The check on a page made up here: an unmarked count, a stale one, a right one, and the
/// phrases that are no counts of tests.
#[test]
fn a_stale_or_unmarked_count_fails_and_a_right_one_passes() {
    struct Made;
    impl Sets for Made {
        fn of(&self, lesson: &str, set: &Set) -> Result<BTreeSet<String>, String> {
            assert_eq!(lesson, "06");
            let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
            match set {
                Set::All => Ok(names(&["a", "b", "c::case_1", "c::case_2"])),
                Set::Failing => Ok(names(&["c::case_1", "c::case_2"])),
                Set::Passing => Ok(names(&["a", "b"])),
                Set::Fails(fix) => Err(format!("{fix} has no `fails:` line")),
                Set::Named(named) => Ok(named.clone()),
            }
        }
        fn tests(&self, _: &str) -> BTreeSet<String> {
            self.of("06", &Set::All).unwrap()
        }
    }
    let page = "\
Run the tests. <!-- count: passing -->Two pass, and <!-- count: failing -->three fail.
<!-- count: passing of all -->Two of the four pass (a marker that opens its line is not rendered).
Three tests pass here.
(<!-- count: named -->two tests: `a` and `c`, not `Kind`)
- Here <!-- count: named -->**one test**, `b`;
- and `a`, in another item.
It is <!-- count: fails some-fix -->one test that fails it.
worker-1 fails with 57P01, one test file serves both, one pass over the outbox.
```text
five tests in a listing are not prose
```
";
    let found = check_page(page, Some("06"), &Made);
    assert_eq!(found.marked, 6);
    assert_eq!(
        found.problems,
        [
            "1: \"three\" counts 2 (failing: c::case_1, c::case_2)",
            "2: a count marker opens its line, where CommonMark starts an HTML block and the rest \
             of the line is not rendered: put a word of the sentence before it",
            "3: \"Three tests\" states a number of tests with no marker: write \
             `<!-- count: SET -->` before it (see lessons/support/verify/tests/checks/counts.rs), \
             or say it without a number",
            "7: count: fails some-fix: some-fix has no `fails:` line",
        ]
    );
}

/// What the marker's sets hold: from the lessons' data, or made up in a test.
trait Sets {
    /// The tests of `set` in lesson `lesson` (never `Named`, which the page itself holds).
    fn of(&self, lesson: &str, set: &Set) -> Result<BTreeSet<String>, String>;
    /// Every test of the lesson.
    fn tests(&self, lesson: &str) -> BTreeSet<String>;
}

#[derive(Debug, Clone, PartialEq)]
enum Set {
    All,
    Passing,
    Failing,
    /// The tests named in the text the marker governs.
    Named(BTreeSet<String>),
    Fails(String),
}

struct Data;

impl Sets for Data {
    fn of(&self, lesson: &str, set: &Set) -> Result<BTreeSet<String>, String> {
        let all = self.tests(lesson);
        let failing = || -> Result<BTreeSet<String>, String> {
            let entry = catalog::find(lesson)?;
            let path = workspace_root()
                .join("lessons")
                .join(entry.folder)
                .join("check-output.txt");
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            Ok((text.lines())
                .filter_map(|line| line.strip_prefix("── "))
                .map(|name| name.trim().to_string())
                .collect())
        };
        match set {
            Set::All => Ok(all),
            Set::Failing => failing(),
            Set::Passing => Ok(all.difference(&failing()?).cloned().collect()),
            Set::Named(named) => Ok(named.clone()),
            Set::Fails(name) => {
                let fix = (verify::wrong_fixes::WRONG_FIXES.iter())
                    .find(|fix| fix.lesson == lesson && fix.name == name)
                    .ok_or_else(|| format!("lesson {lesson} has no wrong fix {name}"))?;
                match fix.expect {
                    verify::wrong_fix::Expect::Caught {
                        fails: Some(tests), ..
                    } => Ok(tests.iter().map(|t| t.to_string()).collect()),
                    _ => Err(format!(
                        "{} has no `fails:` line listing the tests it fails",
                        fix.file
                    )),
                }
            }
        }
    }

    fn tests(&self, lesson: &str) -> BTreeSet<String> {
        let lesson = verify::Lesson::find(lesson).expect("a lesson of the catalog");
        (lesson.tests)().iter().map(|t| t.to_string()).collect()
    }
}

struct Found {
    marked: usize,
    problems: Vec<String>,
}

const MARKER: &str = "<!-- count:";

/// Every marked count of `page` checked against `sets`, and every unmarked one refused;
/// `lesson` is the page's own (a chapter's or its instructor's notes), which a marker may leave
/// out. Problems start with their line number.
fn check_page(page: &str, lesson: Option<&str>, sets: &impl Sets) -> Found {
    let prose = prose_of(page);
    let line_of = |at: usize| prose[..at].matches('\n').count() + 1;
    let mut problems = Vec::new();
    let mut marked_at = BTreeSet::new();
    let mut marked = 0;
    let mut rest = 0;
    while let Some(found) = prose[rest..].find(MARKER) {
        let start = rest + found + MARKER.len();
        let Some(end) = prose[start..].find("-->").map(|e| start + e) else {
            problems.push(format!(
                "{}: a count marker that is never closed",
                line_of(start)
            ));
            break;
        };
        rest = end + 3;
        marked += 1;
        let spec = prose[start..end].trim();
        let line = line_of(start);
        // CommonMark opens an HTML block at a line that starts with `<!--`, and renders nothing
        // of that line's Markdown: the marker must follow some of the sentence's words.
        let line_start = prose[..start].rfind('\n').map_or(0, |n| n + 1);
        let before = prose[line_start..start - MARKER.len()].trim_start();
        let before = before.trim_start_matches(['-', '*', '+', '>', ' ']);
        let before = before.trim_start_matches(|c: char| c.is_ascii_digit());
        if before.trim_start_matches(['.', ')', ' ']).is_empty() {
            problems.push(format!(
                "{line}: a count marker opens its line, where CommonMark starts an HTML block and \
                 the rest of the line is not rendered: put a word of the sentence before it"
            ));
        }
        let text_after = &prose[rest..];
        let skipped = text_after.len() - text_after.trim_start_matches([' ', '\n', '(', '*']).len();
        let number_at = rest + skipped;
        marked_at.insert(number_at);
        match evaluate(spec, lesson, &prose[number_at..], sets) {
            Ok(()) => {}
            Err(problem) => problems.push(format!("{line}: {problem}")),
        }
    }
    for (at, phrase) in count_phrases(&prose) {
        if !marked_at.contains(&at) {
            problems.push(format!(
                "{}: {phrase:?} states a number of tests with no marker: write \
                 `<!-- count: SET -->` before it (see \
                 lessons/support/verify/tests/checks/counts.rs), or say it without a number",
                line_of(at)
            ));
        }
    }
    problems.sort_by_key(|p| p.split(':').next().unwrap().parse::<usize>().unwrap_or(0));
    Found { marked, problems }
}

/// `[NN] SET [of SET]` against the numbers that start `text`.
fn evaluate(spec: &str, lesson: Option<&str>, text: &str, sets: &impl Sets) -> Result<(), String> {
    let mut words: Vec<&str> = spec.split_whitespace().collect();
    let lesson = match words.first() {
        Some(w) if w.len() == 2 && w.chars().all(|c| c.is_ascii_digit()) => {
            let own = words.remove(0);
            own.to_string()
        }
        _ => lesson
            .ok_or("count: a page that is not a lesson's names the lesson (`count: 01 passing`)")?
            .to_string(),
    };
    let parts: Vec<Vec<&str>> = words.split(|w| *w == "of").map(<[_]>::to_vec).collect();
    let (numbers, shown) = numbers_at(text, parts.len())
        .ok_or_else(|| format!("count: {spec}: no number follows the marker"))?;
    for (part, number) in parts.iter().zip(numbers) {
        let set = match part.as_slice() {
            ["all"] => Set::All,
            ["passing"] => Set::Passing,
            ["failing"] => Set::Failing,
            ["named"] => Set::Named(named_in(text, &sets.tests(&lesson))),
            ["fails", name] => Set::Fails(name.to_string()),
            _ => {
                return Err(format!(
                    "count: {spec}: a set is all, passing, failing, named or fails NAME, \
                     with `of` between two"
                ));
            }
        };
        let tests = sets
            .of(&lesson, &set)
            .map_err(|e| format!("count: {spec}: {e}"))?;
        if tests.len() != number {
            let what = match &set {
                Set::Named(_) => "named".to_string(),
                Set::Fails(name) => format!("fails {name}"),
                other => format!("{other:?}").to_lowercase(),
            };
            let listed: Vec<&str> = tests.iter().map(String::as_str).collect();
            return Err(format!(
                "{shown:?} counts {} ({what}: {})",
                tests.len(),
                listed.join(", ")
            ));
        }
    }
    Ok(())
}

/// The first `count` numbers of `text` (`Nine of the nineteen`), and the words they are in.
fn numbers_at(text: &str, count: usize) -> Option<(Vec<usize>, String)> {
    let words: Vec<&str> = text.split_whitespace().take(1 + 3 * (count - 1)).collect();
    let first = number(words.first()?)?;
    let shown = words.first()?.trim_matches(|c: char| !c.is_alphanumeric());
    if count == 1 {
        return Some((vec![first], shown.to_string()));
    }
    // `N of the M`
    let second = number(words.get(3)?).filter(|_| words[1] == "of")?;
    Some((vec![first, second], words.join(" ")))
}

/// The tests named in code spans in `text` up to the end of its paragraph or list item.
fn named_in(text: &str, tests: &BTreeSet<String>) -> BTreeSet<String> {
    let mut end = text.len();
    for (at, _) in text.match_indices('\n') {
        let next = text[at + 1..].trim_start_matches(' ');
        if next.is_empty() || next.starts_with('\n') || next.starts_with("- ") {
            end = at;
            break;
        }
    }
    let bases: BTreeSet<&str> = tests
        .iter()
        .filter_map(|t| t.split_once("::"))
        .map(|t| t.0)
        .collect();
    (text[..end].split('`').skip(1).step_by(2))
        .filter(|name| tests.contains(*name) || bases.contains(name))
        .map(str::to_string)
        .collect()
}

const NUMBERS: [&str; 21] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];

fn number(word: &str) -> Option<usize> {
    let word = word
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    (NUMBERS.iter().position(|n| *n == word)).or_else(|| word.parse().ok())
}

/// Words that may stand between a number and `tests`, `pass` or `fail`: "two more tests", "the
/// other five tests", "Two of its tests pass".
const QUALIFIERS: [&str; 15] = [
    "more",
    "other",
    "fault",
    "sequential",
    "barrier",
    "scripted",
    "forced",
    "race",
    "crash",
    "remaining",
    "still",
    "of",
    "its",
    "the",
    "new",
];

/// Words after which `one` stands for a thing already named.
const PRONOUN_ONE: [&str; 14] = [
    "a", "later", "earlier", "first", "last", "next", "other", "each", "every", "any", "no",
    "which", "another", "that",
];

/// What follows `test` when it names something else: a test file, the test kit.
const NOT_A_TEST: [&str; 13] = [
    "file",
    "files",
    "kit",
    "run",
    "runs",
    "process",
    "processes",
    "database",
    "databases",
    "binary",
    "binaries",
    "suite",
    "harness",
];

/// Every phrase of `prose` that states a number of tests, with where its number starts: a number
/// (not part of a name such as `worker-2`), up to three qualifiers, then `test(s)`, `pass(es)` or
/// `fail(s)`.
fn count_phrases(prose: &str) -> Vec<(usize, String)> {
    // Each word, and whether only spaces (or emphasis) stand between it and the word before: a
    // phrase never runs across punctuation (`32, one test`, `6. The sequential test`).
    let mut words: Vec<(usize, &str, bool)> = Vec::new();
    let (mut start, mut joined) = (None, true);
    for (at, c) in prose.char_indices().chain([(prose.len(), '.')]) {
        let in_word = c.is_alphanumeric() || c == '\'' || c == '-' || c == '_';
        match (in_word, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                words.push((from, &prose[from..at], joined));
                (start, joined) = (None, true);
            }
            _ => {}
        }
        if !(in_word || c.is_whitespace() || c == '*') {
            joined = false;
        }
    }
    let mut found: Vec<(usize, String)> = Vec::new();
    let mut inside_until = 0; // `four` in `Two of the four pass` is part of one phrase
    for (i, &(at, word, joined)) in words.iter().enumerate() {
        if at < inside_until || number(word).is_none() || word.contains('-') || word.contains('_') {
            continue;
        }
        // `a later one fails`, `each one passes`: a pronoun, not a number.
        let before = (i > 0 && joined).then(|| words[i - 1].1.to_lowercase());
        if word.eq_ignore_ascii_case("one")
            && before.is_some_and(|b| PRONOUN_ONE.contains(&b.as_str()))
        {
            continue;
        }
        for k in 1..=4 {
            let Some(&(_, next, joined)) = words.get(i + k) else {
                break;
            };
            if !joined {
                break;
            }
            let next = next.to_lowercase();
            let before = words[i + k - 1].1.to_lowercase();
            let after = (words.get(i + k + 1))
                .filter(|w| w.2)
                .map(|(_, w, _)| w.to_lowercase());
            // `its passes`, `the fails`: nouns, not what tests do.
            let a_verb = !(before == "its" || before == "the");
            let counts_tests = match next.as_str() {
                "test" | "tests" => !after.is_some_and(|a| NOT_A_TEST.contains(&a.as_str())),
                "pass" | "passes" => a_verb && !after.is_some_and(|a| a == "over" || a == "of"),
                "fail" | "fails" => a_verb && after.as_deref() != Some("with"),
                _ => false,
            };
            if counts_tests {
                let end = words[i + k].0 + words[i + k].1.len();
                inside_until = end;
                found.push((
                    at,
                    prose[at..end]
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                ));
                break;
            }
            if !(QUALIFIERS.contains(&next.as_str()) || number(&next).is_some()) {
                break;
            }
        }
    }
    found
}

/// The page with every fenced listing blanked out (line for line, so that offsets keep their
/// lines): a listing is no prose, and its numbers are the code's.
fn prose_of(page: &str) -> String {
    let mut fence: Option<String> = None;
    let mut out = String::with_capacity(page.len());
    for line in page.lines() {
        let trimmed = line.trim_start();
        let run: String = trimmed
            .chars()
            .take_while(|c| *c == '`' || *c == '~')
            .collect();
        let blank = match &fence {
            Some(open) => {
                if trimmed.starts_with(open.as_str())
                    && trimmed.trim_start_matches(open.as_str()).trim().is_empty()
                {
                    fence = None;
                }
                true
            }
            None if run.len() >= 3 => {
                fence = Some(run);
                true
            }
            None => false,
        };
        if !blank {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The lesson a page belongs to: `NN-key.md`, or `instructor/NN-key.md`.
fn lesson_of(page: &Path) -> Option<String> {
    let name = page.file_name()?.to_str()?;
    let number = name.get(..2)?;
    number
        .chars()
        .all(|c| c.is_ascii_digit())
        .then(|| number.to_string())
}

fn book_pages(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            pages.extend(book_pages(&path));
        } else if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    pages
}
