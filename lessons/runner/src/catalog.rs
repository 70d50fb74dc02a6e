//! The lessons, as the runner knows them. The runner never links an exercise (a student's
//! exercise that does not compile must not break the front door), so it keeps its own list and
//! runs each exercise's tests with cargo.

use std::path::{Path, PathBuf};

pub struct Lesson {
    /// Stable: progress is keyed by it, so renaming or reordering folders keeps it.
    pub key: &'static str,
    /// What the student types (`01`), and the chapter's number.
    pub number: &'static str,
    pub title: &'static str,
    /// The folder name under `exercises/` and `solutions/`.
    pub folder: &'static str,
    /// The folder of the lesson's suite under `lessons/`, whose changes also change the verdict.
    pub suite: &'static str,
    /// The lesson's base schema under `migrations/`.
    pub schema: &'static str,
}

pub const LESSONS: &[Lesson] = &[
    Lesson {
        key: "check-then-act",
        number: "01",
        title: "Check-then-act vs. a primary key",
        folder: "01-check-then-act",
        suite: "01-check-then-act",
        schema: "ledger",
    },
    Lesson {
        key: "on-conflict",
        number: "02",
        title: "Guard 1: let the insert decide",
        folder: "02-on-conflict",
        suite: "order-saga",
        schema: "order_saga",
    },
    Lesson {
        key: "one-transaction",
        number: "03",
        title: "The record and the effect commit together",
        folder: "03-one-transaction",
        suite: "order-saga",
        schema: "order_saga",
    },
    Lesson {
        key: "for-update",
        number: "04",
        title: "Guard 2: a terminal state, read under FOR UPDATE",
        folder: "04-for-update",
        suite: "order-saga",
        schema: "order_saga",
    },
    Lesson {
        key: "outbox",
        number: "05",
        title: "The transaction is the third guard: an outbox",
        folder: "05-outbox",
        suite: "order-saga",
        schema: "order_saga",
    },
];

/// Accepts `1`, `01`, the stable key or the folder name.
pub fn find(name: &str) -> Result<&'static Lesson, String> {
    let number = name.parse::<u32>().ok();
    LESSONS
        .iter()
        .find(|lesson| {
            lesson.key == name
                || lesson.folder == name
                || number.is_some_and(|n| lesson.number.parse() == Ok(n))
        })
        .ok_or_else(|| {
            let known: Vec<String> = LESSONS
                .iter()
                .map(|l| format!("{} ({})", l.number, l.key))
                .collect();
            format!(
                "there is no lesson {name:?}. The lessons are: {}.",
                known.join(", ")
            )
        })
}

impl Lesson {
    pub fn package(&self) -> String {
        format!("exercise-{}", self.folder)
    }

    pub fn exercise_dir(&self, root: &Path) -> PathBuf {
        root.join("exercises").join(self.folder)
    }

    pub fn solution_dir(&self, root: &Path) -> PathBuf {
        root.join("solutions").join(self.folder)
    }

    pub fn chapter(&self) -> String {
        format!("book/src/{}.md", self.chapter_file())
    }

    fn chapter_file(&self) -> &'static str {
        self.folder
    }

    /// Where the staged hints are kept: beside the lesson's suite, one file per lesson.
    pub fn hints_file(&self, root: &Path) -> PathBuf {
        root.join("lessons")
            .join(self.suite)
            .join("hints")
            .join(format!("{}.md", self.folder))
    }

    /// Everything whose change can change the verdict of the exercise's tests.
    pub fn inputs(&self, root: &Path) -> Vec<PathBuf> {
        vec![
            self.exercise_dir(root),
            root.join("lessons").join(self.suite).join("src"),
            root.join("lessons").join(self.suite).join("exercise-tests"),
            root.join("lessons/kit/src"),
            root.join("migrations").join(self.schema),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lesson_is_found_by_number_key_or_folder() {
        for name in ["4", "04", "for-update", "04-for-update"] {
            assert_eq!(find(name).map(|l| l.key), Ok("for-update"), "{name}");
        }
    }

    #[test]
    fn an_unknown_lesson_lists_the_known_ones() {
        let error = find("9").err().unwrap();
        assert!(error.contains("no lesson \"9\""), "{error}");
        assert!(error.contains("01 (check-then-act)"), "{error}");
    }

    #[test]
    fn keys_and_numbers_are_unique() {
        for (i, a) in LESSONS.iter().enumerate() {
            for b in &LESSONS[i + 1..] {
                assert_ne!(a.key, b.key);
                assert_ne!(a.number, b.number);
                assert_ne!(a.folder, b.folder);
            }
        }
    }
}
