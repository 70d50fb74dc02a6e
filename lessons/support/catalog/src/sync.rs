//! The lists other files keep of the lessons, written from the catalog: the book's table of
//! contents (chapters and instructor's notes), the README's table of lessons and the index of
//! the instructor's notes. `cargo workbook sync` writes them; the root suite fails when one
//! drifts (verify's `tests/checks/catalog.rs`). Each list is a run of lines in its file, one a
//! lesson, found by its shape; everything around it is the file's own.

use std::path::Path;

use crate::{LESSONS, Lesson};

/// One list of lessons in a file: which lines are its rows, and each lesson's row.
pub struct List {
    /// The file, from the workspace's root.
    pub file: &'static str,
    /// What the list is, as a message names it.
    pub what: &'static str,
    is_row: fn(&str) -> bool,
    row: fn(&Lesson) -> String,
}

pub const LISTS: &[List] = &[
    List {
        file: "book/src/SUMMARY.md",
        what: "the book's chapters",
        // A chapter's file starts with its number: `](01-…`, `](10-…`.
        is_row: |line| {
            line.starts_with("- [")
                && (line.split_once("]("))
                    .is_some_and(|(_, file)| file.starts_with(|c: char| c.is_ascii_digit()))
        },
        row: |lesson| format!("- [{}]({}.md)", lesson.title, lesson.folder),
    },
    List {
        file: "book/src/SUMMARY.md",
        what: "the instructor's notes in the book's contents",
        is_row: |line| line.starts_with("[Notes on lesson "),
        row: |lesson| {
            format!(
                "[Notes on lesson {}](instructor/{}.md)",
                lesson.number, lesson.folder
            )
        },
    },
    List {
        file: "book/src/instructor/README.md",
        what: "the index of the instructor's notes",
        is_row: |line| line.starts_with("- [Lesson "),
        row: |lesson| format!("- [Lesson {}](./{}.md)", lesson.number, lesson.folder),
    },
    List {
        file: "README.md",
        what: "the README's table of lessons",
        is_row: |line| {
            let cell = line.get(2..6).unwrap_or_default();
            line.starts_with("| ") && cell.ends_with(" |") && cell[..2].parse::<u8>().is_ok()
        },
        row: |lesson| {
            format!(
                "| {} | `exercises/{}` | {} | `{}` |",
                lesson.number,
                lesson.folder,
                lesson.about,
                lesson.chapter()
            )
        },
    },
];

/// `text` with `list`'s run of rows written from the catalog. The rows stand together, one a
/// line: a file whose rows are missing or split by another line is refused, as it is not clear
/// where a new lesson's row would go.
pub fn rewrite(list: &List, text: &str) -> Result<String, String> {
    let lines: Vec<&str> = text.lines().collect();
    let rows: Vec<usize> = (0..lines.len())
        .filter(|&i| (list.is_row)(lines[i]))
        .collect();
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
    out.extend(LESSONS.iter().map(list.row));
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
}
