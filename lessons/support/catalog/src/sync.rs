//! The lists other files keep of the lessons, written from the catalog: the book's table of
//! contents (chapters and instructor's notes), the README's table of lessons, the index of the
//! instructor's notes, and the lessons' crates in the workspace's manifest and verify's.
//! `cargo workbook sync` writes them; the root suite fails when one drifts (verify's
//! `tests/checks/catalog.rs`). Each list is a run of lines in one section of its file, a row a
//! lesson (or a lesson's crate), found by its shape; everything around it is the file's own.

use std::path::Path;

use crate::{LESSONS, Lesson};

/// One list of lessons in a file: where it stands, which lines are its rows, and the rows.
pub struct List {
    /// The file, from the workspace's root.
    pub file: &'static str,
    /// What the list is, as a message names it.
    pub what: &'static str,
    /// The section that holds it: from the first line that starts with `after` ("": the top)
    /// to the next that starts with `until` ("": the end).
    after: &'static str,
    until: &'static str,
    is_row: fn(&str) -> bool,
    rows: fn() -> Vec<String>,
}

fn each_lesson(row: fn(&Lesson) -> String) -> Vec<String> {
    LESSONS.iter().map(row).collect()
}

/// The crates under `lessons/` that play the lessons, in the order of the first lesson each
/// plays: a lesson's own folder, or the domain it shares (`order-saga`).
pub fn crates() -> Vec<&'static str> {
    let mut crates: Vec<&'static str> = Vec::new();
    for lesson in LESSONS {
        if !crates.contains(&lesson.domain) {
            crates.push(lesson.domain);
        }
    }
    crates
}

/// What the lessons' crates call a crate in Rust: its folder without the number, in snake case
/// (`01-check-then-act` is `check_then_act`), as each crate's `[lib]` names itself.
pub fn crate_name(folder: &str) -> String {
    let name = match folder.split_once('-') {
        Some((number, rest)) if number.bytes().all(|b| b.is_ascii_digit()) => rest,
        _ => folder,
    };
    name.replace('-', "_")
}

/// A member's line in the workspace's arrays of members: `    "lessons/01-…",`.
fn is_member(line: &str) -> bool {
    line.starts_with("    \"lessons/") && !line.starts_with("    \"lessons/support")
}

fn members() -> Vec<String> {
    (crates().iter())
        .map(|c| format!("    \"lessons/{c}\","))
        .collect()
}

pub const LISTS: &[List] = &[
    List {
        file: "book/src/SUMMARY.md",
        what: "the book's chapters",
        after: "",
        until: "",
        // A chapter's file starts with its number: `](01-…`, `](10-…`.
        is_row: |line| {
            line.starts_with("- [")
                && (line.split_once("]("))
                    .is_some_and(|(_, file)| file.starts_with(|c: char| c.is_ascii_digit()))
        },
        rows: || each_lesson(|l| format!("- [{}]({}.md)", l.title, l.folder)),
    },
    List {
        file: "book/src/SUMMARY.md",
        what: "the instructor's notes in the book's contents",
        after: "",
        until: "",
        is_row: |line| line.starts_with("[Notes on lesson "),
        rows: || {
            each_lesson(|l| format!("[Notes on lesson {}](instructor/{}.md)", l.number, l.folder))
        },
    },
    List {
        file: "book/src/instructor/README.md",
        what: "the index of the instructor's notes",
        after: "",
        until: "",
        is_row: |line| line.starts_with("- [Lesson "),
        rows: || each_lesson(|l| format!("- [Lesson {}](./{}.md)", l.number, l.folder)),
    },
    List {
        file: "README.md",
        what: "the README's table of lessons",
        after: "",
        until: "",
        is_row: |line| {
            let cell = line.get(2..6).unwrap_or_default();
            line.starts_with("| ") && cell.ends_with(" |") && cell[..2].parse::<u8>().is_ok()
        },
        rows: || {
            each_lesson(|l| {
                let (folder, chapter) = (l.folder, l.chapter());
                format!(
                    "| {} | `exercises/{folder}` | {} | `{chapter}` |",
                    l.number, l.about
                )
            })
        },
    },
    List {
        file: "Cargo.toml",
        what: "the workspace's members",
        after: "members = [",
        until: "]",
        is_row: is_member,
        rows: members,
    },
    List {
        file: "Cargo.toml",
        what: "the workspace's default members",
        after: "default-members = [",
        until: "]",
        is_row: is_member,
        rows: members,
    },
    List {
        file: "Cargo.toml",
        what: "the lessons' crates among the workspace's dependencies",
        after: "[workspace.dependencies]",
        until: "[",
        is_row: |line| line.contains("path = \"lessons/") && !line.contains("lessons/support"),
        rows: || {
            (crates().iter())
                .map(|c| {
                    let name = crate_name(c);
                    format!("{name} = {{ package = \"lesson-{c}\", path = \"lessons/{c}\" }}")
                })
                .collect()
        },
    },
    List {
        file: "lessons/support/verify/Cargo.toml",
        what: "the lessons' crates verify's checks play",
        after: "# The lessons' crates",
        until: "[",
        is_row: |line| line.ends_with(".workspace = true"),
        rows: || {
            (crates().iter())
                .map(|c| format!("{}.workspace = true", crate_name(c)))
                .collect()
        },
    },
];

/// `text` with `list`'s run of rows written from the catalog. The rows stand together, one a
/// line: a section whose rows are missing or split by another line is refused, as it is not
/// clear where a new lesson's row would go.
pub fn rewrite(list: &List, text: &str) -> Result<String, String> {
    let lines: Vec<&str> = text.lines().collect();
    let start = match list.after {
        "" => 0,
        after => {
            1 + (lines.iter().position(|l| l.starts_with(after)))
                .ok_or_else(|| format!("{} has no line {after:?}", list.file))?
        }
    };
    let end = (start..lines.len())
        .find(|&i| !list.until.is_empty() && lines[i].starts_with(list.until))
        .unwrap_or(lines.len());
    let rows: Vec<usize> = (start..end).filter(|&i| (list.is_row)(lines[i])).collect();
    let (Some(&first), Some(&last)) = (rows.first(), rows.last()) else {
        return Err(format!("{} has no rows of {}", list.file, list.what));
    };
    if let Some(other) = (first..=last).find(|i| !rows.contains(i)) {
        return Err(format!(
            "{}: the rows of {} are split by line {}, {:?}; they stand together",
            list.file,
            list.what,
            other + 1,
            lines[other],
        ));
    }
    let mut out: Vec<String> = lines[..first].iter().map(|l| l.to_string()).collect();
    out.extend((list.rows)());
    out.extend(lines[last + 1..].iter().map(|l| l.to_string()));
    Ok(out.join("\n") + "\n")
}

/// Every file that keeps a list, as it is and as the catalog would write it, in `LISTS`'s order.
pub fn files(root: &Path) -> Result<Vec<(&'static str, String, String)>, String> {
    let mut files: Vec<(&'static str, String, String)> = Vec::new();
    for list in LISTS {
        if !files.iter().any(|(file, _, _)| *file == list.file) {
            let path = root.join(list.file);
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            files.push((list.file, text.clone(), text));
        }
        let (_, _, wanted) =
            (files.iter_mut().find(|(file, _, _)| *file == list.file)).expect("read above");
        *wanted = rewrite(list, wanted)?;
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAPTERS: &List = &LISTS[0];

    fn list(what: &str) -> &'static List {
        LISTS.iter().find(|l| l.what == what).unwrap()
    }

    #[test]
    fn a_list_is_written_in_place_and_the_rest_kept() {
        let text = "# Summary\n\n- [Old](01-old.md)\n- [Gone](99-gone.md)\n\n---\n[Intro](i.md)\n";
        let written = rewrite(CHAPTERS, text).unwrap();
        let expected: String = (LESSONS.iter())
            .map(|l| format!("- [{}]({}.md)\n", l.title, l.folder))
            .collect();
        assert_eq!(
            written,
            format!("# Summary\n\n{expected}\n---\n[Intro](i.md)\n")
        );
        assert_eq!(
            rewrite(CHAPTERS, &written).unwrap(),
            written,
            "a second run changes nothing"
        );
    }

    #[test]
    fn a_list_that_is_missing_or_split_is_refused() {
        let missing = rewrite(CHAPTERS, "# Summary\n").unwrap_err();
        assert!(
            missing.contains("has no rows of the book's chapters"),
            "{missing}"
        );
        let split = rewrite(CHAPTERS, "- [A](01-a.md)\ntext\n- [B](02-b.md)\n").unwrap_err();
        assert!(split.contains("split by line 2, \"text\""), "{split}");
    }

    /// The members and the default members have rows of one shape: each list is its own
    /// section's, and the crates shared by several lessons are listed once.
    #[test]
    fn each_array_of_members_is_written_in_its_own_section() {
        let text = "members = [\n    \"lessons/support/*\",\n    \"lessons/99-gone\",\n]\n\
                    default-members = [\n    \"lessons/99-gone\",\n]\n";
        let text = rewrite(list("the workspace's members"), text).unwrap();
        let text = rewrite(list("the workspace's default members"), &text).unwrap();
        let rows = members().join("\n");
        assert_eq!(
            text,
            format!(
                "members = [\n    \"lessons/support/*\",\n{rows}\n]\ndefault-members = [\n{rows}\n]\n"
            )
        );
        assert_eq!(crates().iter().filter(|c| **c == "order-saga").count(), 1);
        assert_eq!(crate_name("01-check-then-act"), "check_then_act");
        assert_eq!(crate_name("order-saga"), "order_saga");
    }
}
