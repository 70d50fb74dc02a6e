//! The book shows code only by `{{#include file:anchor}}` from compiled, tested files. mdBook
//! silently includes nothing for a missing file or anchor, so a renamed anchor would leave an
//! empty listing in the book with a green build. This test makes that red.

use std::path::{Path, PathBuf};

use verify::workspace_root;

#[test]
fn every_include_in_the_book_finds_its_file_and_anchor() {
    let chapters = workspace_root().join("book/src");
    let mut problems = Vec::new();
    let mut includes = 0;
    for chapter in markdown_files(&chapters) {
        let text = std::fs::read_to_string(&chapter).unwrap();
        for target in include_targets(&text) {
            includes += 1;
            if let Err(problem) = check(&chapter, target) {
                problems.push(format!(
                    "{}: {{{{#include {target}}}}}: {problem}",
                    chapter.display()
                ));
            }
        }
    }
    assert!(includes > 0, "the book includes no code at all");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The text between `{{#include ` and `}}`, for every include in `markdown`.
fn include_targets(markdown: &str) -> Vec<&str> {
    markdown
        .split("{{#include ")
        .skip(1)
        .filter_map(|rest| rest.split_once("}}").map(|(target, _)| target.trim()))
        .collect()
}

fn check(chapter: &Path, target: &str) -> Result<(), String> {
    let (path, selector) = match target.split_once(':') {
        Some((path, selector)) => (path, Some(selector)),
        None => (target, None),
    };
    let file = chapter.parent().unwrap().join(path);
    let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {path}: {e}"))?;
    match selector {
        // A line range such as `5:`: used only to skip an insta snapshot's header, which must
        // then end exactly on the line before, or the book shows metadata or loses a line.
        Some(range) if range.starts_with(|c: char| c.is_ascii_digit()) => {
            let first: usize = range.split(':').next().unwrap().parse().unwrap_or(1);
            let lines: Vec<&str> = text.lines().collect();
            let header_ends_before = first >= 2 && lines.get(first - 2) == Some(&"---");
            if !(path.ends_with(".snap") && header_ends_before && lines.len() >= first) {
                return Err(format!(
                    "a line range must skip exactly a snapshot's header (line {} of {path} \
                     should be `---`)",
                    first - 1
                ));
            }
        }
        Some(anchor) => {
            let begins = text.contains(&format!("ANCHOR: {anchor}\n"));
            let ends = text.contains(&format!("ANCHOR_END: {anchor}\n"));
            if !(begins && ends) {
                return Err(format!("{path} has no complete anchor {anchor:?}"));
            }
        }
        None => {}
    }
    Ok(())
}

fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    files.sort();
    files
}

/// Each lesson's "Common wrong fixes" in the instructor appendix opens with the table of its
/// catalogue (lessons/NN-key/wrong-fixes), between `<!-- wrong-fixes NN -->` and
/// `<!-- /wrong-fixes -->`, so the book lists exactly the wrong fixes the suite is proved to
/// catch or pass. `WORKBOOK_BLESS=1 cargo test -p workbook-verify --test book` rewrites them.
#[test]
fn the_appendix_lists_each_lessons_wrong_fixes_as_the_catalogue_has_them() {
    let path = verify::workspace_root().join("book/src/appendix-instructor.md");
    let text = std::fs::read_to_string(&path).expect("the appendix");
    let mut updated = text.clone();
    let mut stale = Vec::new();
    for lesson in catalog::LESSONS {
        let mut fixes: Vec<_> = (verify::wrong_fixes::WRONG_FIXES.iter())
            .filter(|fix| fix.lesson == lesson.number)
            .collect();
        fixes.sort_by_key(|fix| fix.name);
        let table = verify::wrong_fix::appendix_table(&fixes);
        let open = format!("<!-- wrong-fixes {} -->\n", lesson.number);
        let close = "<!-- /wrong-fixes -->";
        let Some(start) = updated.find(&open).map(|i| i + open.len()) else {
            stale.push(format!(
                "lesson {}: no `{}` marker",
                lesson.number,
                open.trim()
            ));
            continue;
        };
        let end = start + updated[start..].find(close).expect("a closing marker");
        if updated[start..end] != table {
            stale.push(format!("lesson {}'s table", lesson.number));
            updated.replace_range(start..end, &table);
        }
    }
    if stale.is_empty() {
        return;
    }
    if std::env::var_os("WORKBOOK_BLESS").is_some() {
        std::fs::write(&path, updated).expect("rewrite the appendix");
        return;
    }
    panic!(
        "book/src/appendix-instructor.md disagrees with the wrong-fix catalogues: {}.\nRun \
         `WORKBOOK_BLESS=1 cargo test -p workbook-verify --test book` to rewrite the tables, and \
         review the diff.",
        stale.join(", ")
    );
}

/// Every failure message points at a section of the book (`kit::see` with a lesson and a
/// section, or lesson 01's `see` with a section only): each such section must be a heading of
/// that lesson's chapter, or the student is sent looking for something that is not there.
#[test]
fn every_section_a_failure_message_cites_is_a_heading_of_its_chapter() {
    let root = workspace_root();
    let mut sources = Vec::new();
    rust_files(&root.join("lessons"), &mut sources);
    let mut problems = Vec::new();
    let mut cited = 0;
    for source in sources {
        let text = std::fs::read_to_string(&source).unwrap();
        // Lesson 01's messages call a local `see(section)` that fills in their own lesson.
        let own = source
            .strip_prefix(root.join("lessons"))
            .ok()
            .and_then(|p| p.components().next())
            .and_then(|c| c.as_os_str().to_str())
            .and_then(|folder| folder.get(..2))
            .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
            .map(str::to_string);
        for args in text.split("see(").skip(1) {
            let strings = quoted_strings(args);
            let (lesson, section) = match strings.as_slice() {
                [lesson, section, ..]
                    if args.trim_start().starts_with('"') && is_number(lesson) =>
                {
                    (lesson.clone(), section.clone())
                }
                [section, ..] if args.trim_start().starts_with('"') => match &own {
                    Some(own) => (own.clone(), section.clone()),
                    None => continue,
                },
                _ => continue,
            };
            cited += 1;
            let Ok(lesson) = catalog::find(&lesson) else {
                problems.push(format!(
                    "{}: see({lesson:?}, …): no such lesson",
                    source.display()
                ));
                continue;
            };
            let chapter = std::fs::read_to_string(root.join(lesson.chapter())).unwrap();
            let heading = |line: &str| line.trim_start_matches('#').trim() == section;
            if !chapter.lines().any(|l| l.starts_with("##") && heading(l)) {
                problems.push(format!(
                    "{}: cites \"{section}\", which is no heading of {}",
                    source.display(),
                    lesson.chapter()
                ));
            }
        }
    }
    assert!(
        cited > 20,
        "found only {cited} citations: is the parsing broken?"
    );
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn is_number(text: &str) -> bool {
    text.len() == 2 && text.chars().all(|c| c.is_ascii_digit())
}

/// The string literals at the start of a call's arguments, up to its closing parenthesis.
fn quoted_strings(args: &str) -> Vec<String> {
    let call = args.split(')').next().unwrap_or_default();
    call.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() && !path.ends_with("target") {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}
