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
    let mut files = Vec::new();
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for path in entries.filter_map(|entry| entry.ok().map(|e| e.path())) {
        if path.is_dir() {
            files.extend(markdown_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Each lesson's "Common wrong fixes" in its instructor's notes (`book/src/instructor/NN-key.md`)
/// opens with the table of its catalogue (lessons/NN-key/wrong-fixes), between
/// `<!-- wrong-fixes NN -->` and `<!-- /wrong-fixes -->`, so the book lists exactly the wrong
/// fixes the suite is proved to catch or pass.
/// `WORKBOOK_BLESS=1 cargo test -p workbook-verify --test checks book` rewrites the tables.
#[test]
fn the_instructors_notes_list_each_lessons_wrong_fixes_as_the_catalogue_has_them() {
    let mut stale = Vec::new();
    for lesson in catalog::LESSONS {
        let path = workspace_root().join(format!("book/src/instructor/{}.md", lesson.folder));
        let Ok(text) = std::fs::read_to_string(&path) else {
            stale.push(format!("lesson {}: no {}", lesson.number, path.display()));
            continue;
        };
        let mut fixes: Vec<_> = (verify::wrong_fixes::WRONG_FIXES.iter())
            .filter(|fix| fix.lesson == lesson.number)
            .collect();
        fixes.sort_by_key(|fix| fix.name);
        let table = verify::wrong_fix::catalogue_table(&fixes);
        let open = format!("<!-- wrong-fixes {} -->\n", lesson.number);
        let close = "<!-- /wrong-fixes -->";
        let Some(start) = text.find(&open).map(|i| i + open.len()) else {
            stale.push(format!("{}: no `{}` marker", path.display(), open.trim()));
            continue;
        };
        let end = start + text[start..].find(close).expect("a closing marker");
        if text[start..end] == table {
            continue;
        }
        if std::env::var_os("WORKBOOK_BLESS").is_some() {
            let mut updated = text.clone();
            updated.replace_range(start..end, &table);
            std::fs::write(&path, updated).expect("rewrite the instructor's notes");
        } else {
            stale.push(format!("{}'s table", path.display()));
        }
    }
    assert!(
        stale.is_empty(),
        "the instructor's notes disagree with the wrong-fix catalogues: {}.\nRun \
         `WORKBOOK_BLESS=1 cargo test -p workbook-verify --test checks book` to rewrite the tables, and \
         review the diff.",
        stale.join(", ")
    );
}

/// Every failure message points at a section of the book (`kit::see` with a lesson and a
/// section, or a lesson crate's `see` with a section only): each such section must be a heading
/// of that lesson's chapter, or the student is sent looking for something that is not there.
#[test]
fn every_section_a_failure_message_cites_is_a_heading_of_its_chapter() {
    let root = workspace_root();
    let citations = verify::citations::all();
    assert!(
        citations.len() > 20,
        "found only {} citations: is the parsing broken?",
        citations.len()
    );
    let mut problems = Vec::new();
    for citation in citations {
        let Ok(lesson) = catalog::find(&citation.lesson) else {
            problems.push(format!(
                "{}: see({:?}, …): no such lesson",
                citation.source.display(),
                citation.lesson
            ));
            continue;
        };
        let chapter = std::fs::read_to_string(root.join(lesson.chapter())).unwrap();
        let sections = verify::citations::sections(&chapter);
        if !sections
            .iter()
            .any(|s| s.level >= 2 && s.title == citation.section)
        {
            problems.push(format!(
                "{}: cites \"{}\", which is no heading of {}",
                citation.source.display(),
                citation.section,
                lesson.chapter()
            ));
        }
    }
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every link from one page of the book to another finds its page, and its section when it
/// names one: mdBook renders a broken cross-reference as a link to nowhere, silently.
#[test]
fn every_cross_reference_in_the_book_finds_its_page_and_section() {
    let src = workspace_root().join("book/src");
    let mut problems = Vec::new();
    let mut links = 0;
    for page in markdown_files(&src) {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in text
            .split("](")
            .skip(1)
            .filter_map(|rest| rest.split_once(')'))
        {
            let (target, _) = target;
            if target.contains("://") || !target.contains(".md") {
                continue;
            }
            links += 1;
            let (file, section) = target.split_once('#').unwrap_or((target, ""));
            let linked = page.parent().unwrap().join(file);
            let Ok(linked_text) = std::fs::read_to_string(&linked) else {
                problems.push(format!("{}: ({target}): no such page", page.display()));
                continue;
            };
            let anchors: Vec<String> = (linked_text.lines())
                .filter(|line| line.starts_with('#'))
                .map(|line| heading_anchor(line.trim_start_matches('#').trim()))
                .collect();
            if !section.is_empty() && !anchors.iter().any(|a| a == section) {
                problems.push(format!("{}: ({target}): no such section", page.display()));
            }
        }
    }
    assert!(
        links > 20,
        "found only {links} cross-references: is the parsing broken?"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The anchor mdBook gives a heading: lower case, spaces as dashes, punctuation dropped.
fn heading_anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A diagram of a recorded trace is generated from the trace's snapshot, never drawn by hand:
/// between `<!-- diagram: lessons/…/snapshots/x.snap -->` and `<!-- /diagram -->` a chapter holds
/// the mermaid block `verify::diagram` makes of that snapshot. When a scenario's trace changes,
/// its snapshot and its diagram change together.
/// `WORKBOOK_BLESS=1 cargo test -p workbook-verify --test checks book` rewrites them.
#[test]
fn every_trace_diagram_is_drawn_from_its_snapshot() {
    let root = workspace_root();
    let mut stale = Vec::new();
    let mut diagrams = 0;
    for page in markdown_files(&root.join("book/src")) {
        let text = std::fs::read_to_string(&page).unwrap();
        let mut updated = String::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("<!-- diagram: ") {
            let (before, from) = rest.split_at(at);
            updated.push_str(before);
            let open_end = from.find(" -->\n").expect("a marker ends with -->") + 5;
            let snapshot = from["<!-- diagram: ".len()..open_end - 5].trim();
            let close = from.find("<!-- /diagram -->").expect("a closing marker");
            let source = std::fs::read_to_string(root.join(snapshot))
                .unwrap_or_else(|e| panic!("{}: {snapshot}: {e}", page.display()));
            let block = format!(
                "```mermaid\n{}```\n",
                verify::diagram::from_snapshot(&source)
            );
            if from[open_end..close] != block {
                stale.push(format!("{}: the diagram of {snapshot}", page.display()));
            }
            updated.push_str(&from[..open_end]);
            updated.push_str(&block);
            rest = &from[close..];
            diagrams += 1;
        }
        updated.push_str(rest);
        if updated != text && std::env::var_os("WORKBOOK_BLESS").is_some() {
            std::fs::write(&page, updated).unwrap();
        }
    }
    assert!(diagrams > 0, "no diagram drawn from a trace");
    if std::env::var_os("WORKBOOK_BLESS").is_none() {
        assert!(
            stale.is_empty(),
            "{}\nRun `WORKBOOK_BLESS=1 cargo test -p workbook-verify --test checks book`, and review \
             the diff.",
            stale.join("\n")
        );
    }
}

/// A diagram either is drawn from a recording (between diagram markers) or says it is a sketch:
/// `<!-- sketch -->` and then an italic caption starting "A sketch", so a reader never takes a
/// drawing for something a test observed.
#[test]
fn every_diagram_is_a_recording_or_says_it_is_a_sketch() {
    let root = workspace_root();
    let mut unlabelled = Vec::new();
    for page in markdown_files(&root.join("book/src")) {
        let text = std::fs::read_to_string(&page).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut recorded = false;
        for (at, line) in lines.iter().enumerate() {
            if line.starts_with("<!-- diagram: ") {
                recorded = true;
            } else if line.starts_with("<!-- /diagram -->") {
                recorded = false;
            } else if *line == "```mermaid" && !recorded {
                let labelled = at >= 3
                    && lines[at - 3] == "<!-- sketch -->"
                    && lines[at - 2].starts_with("*A sketch")
                    && lines[at - 1].is_empty();
                if !labelled {
                    unlabelled.push(format!("{}:{}", page.display(), at + 1));
                }
            }
        }
    }
    assert!(
        unlabelled.is_empty(),
        "these mermaid blocks are neither drawn from a snapshot nor labelled as a sketch:\n{}",
        unlabelled.join("\n")
    );
}
