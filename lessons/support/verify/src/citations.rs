//! Which sections of the book the failure messages cite, read from the source that words them,
//! and a chapter's sections, so that the tests can hold the two against each other.

use std::path::{Path, PathBuf};

use crate::workspace_root;

/// One citation in a lesson's messages: kit::see with a lesson and a section, or a lesson crate's own
/// see with a section only, which fills in the lesson of its folder.
#[derive(Debug, Clone)]
pub struct Citation {
    pub source: PathBuf,
    pub lesson: String,
    pub section: String,
}

/// Every citation under `lessons/`.
pub fn all() -> Vec<Citation> {
    let root = workspace_root();
    let mut sources = Vec::new();
    rust_files(&root.join("lessons"), &mut sources);
    let mut found = Vec::new();
    for source in sources {
        let text = std::fs::read_to_string(&source).unwrap();
        let own = source
            .strip_prefix(root.join("lessons"))
            .ok()
            .and_then(|p| p.components().next())
            .and_then(|c| c.as_os_str().to_str())
            .and_then(|folder| folder.get(..2))
            .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
            .map(str::to_string);
        for args in text.split("see(").skip(1) {
            if !args.trim_start().starts_with('"') {
                continue;
            }
            let (lesson, section) = match quoted_strings(args).as_slice() {
                [lesson, section, ..] if is_number(lesson) => (lesson.clone(), section.clone()),
                [section, ..] => match &own {
                    Some(own) => (own.clone(), section.clone()),
                    None => continue,
                },
                _ => continue,
            };
            found.push(Citation {
                source: source.clone(),
                lesson,
                section,
            });
        }
    }
    found
}

/// A heading of a chapter: its level (`##` is 2), its text, and the lines its section spans,
/// up to the next heading of the same or a higher level.
#[derive(Debug, Clone)]
pub struct Section {
    pub level: usize,
    pub title: String,
    pub lines: std::ops::Range<usize>,
}

/// The sections of a chapter, in order. Fenced code is skipped: a `#` there is no heading.
pub fn sections(chapter: &str) -> Vec<Section> {
    let lines: Vec<&str> = chapter.lines().collect();
    let mut headings = Vec::new();
    let mut fenced = false;
    for (n, line) in lines.iter().enumerate() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        let level = line.len() - line.trim_start_matches('#').len();
        if !fenced && level > 0 && line[level..].starts_with(' ') {
            headings.push((n, level, line[level..].trim().to_string()));
        }
    }
    headings
        .iter()
        .map(|&(start, level, ref title)| {
            let end = (headings.iter())
                .find(|&&(n, l, _)| n > start && l <= level)
                .map_or(lines.len(), |&(n, _, _)| n);
            Section {
                level,
                title: title.clone(),
                lines: start..end,
            }
        })
        .collect()
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
