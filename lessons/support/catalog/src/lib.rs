//! The lessons, listed once: each lesson's manifest, `lessons/NN-key/lesson.toml`, which the
//! build script reads. The runner (`cargo workbook`), the maintainers' checks (`verify`,
//! `repeat`) and the book's checks read this list. `cargo workbook sync` writes the lists the
//! book and the README keep of it (`sync`), and a check in the root `cargo test` fails when
//! they, the workspace's members or the runner's copy of the shipped exercises disagree with it.
//!
//! It has no dependencies, so the runner can read it without building any lesson.

pub mod sync;

use std::path::{Path, PathBuf};

/// One lesson: an exercise and its solution, the lesson's folder, and a chapter.
#[derive(Debug)]
pub struct Lesson {
    /// What the student types (`01`), and the chapter's number.
    pub number: &'static str,
    /// Stable: progress is kept by it, so renaming or renumbering a lesson loses nothing.
    pub key: &'static str,
    /// The chapter's title, as the book's table of contents and its heading say it.
    pub title: &'static str,
    /// The folder's name under `exercises/`, `solutions/` and `lessons/`, and the chapter's
    /// file name under `book/src/`.
    pub folder: &'static str,
    /// The crate under `lessons/` that holds the lesson's scenarios: the lesson's own folder,
    /// or the domain crate it shares with other lessons.
    pub domain: &'static str,
    /// The schema the lesson starts from, under `migrations/`.
    pub schema: &'static str,
    /// What the shipped exercise must fail with, in the checks' words (`fails_with`).
    pub intended_failure: &'static str,
    /// What it teaches, as the README's table of lessons says it.
    pub about: &'static str,
}

// LESSONS and KAFKA_TRACK, one entry for each manifest (`lessons/NN-key/lesson.toml`), in the
// order of their numbers: written by build.rs.
include!(concat!(env!("OUT_DIR"), "/lessons.rs"));

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

/// A lesson that can also run on a real Kafka-protocol broker (`cargo workbook check NN
/// --kafka`): its exercise has a `kafka` feature and a `kafka` test target. Its manifest's
/// `[kafka]` table.
#[derive(Debug)]
pub struct Kafka {
    pub lesson: &'static str,
    /// Where the Kafka track has the student's code: lesson 07's own `src/kafka.rs`, or the
    /// same `src/lib.rs` as the PostgreSQL track (lesson 08: the relay and consumer do not
    /// change, the broker does).
    pub code: &'static str,
    /// The Kafka tests the shipped exercise fails, each with words its failure says: `cargo
    /// workbook repeat NN --kafka` counts a run as caught only when it fails saying them
    /// (`.ci/kafka-track` holds the shipped exercise to the same).
    pub caught: &'static [KafkaCaught],
}

/// A Kafka test a shipped exercise fails, and the words of its failure.
#[derive(Debug, Clone, Copy)]
pub struct KafkaCaught {
    pub test: &'static str,
    pub says: &'static str,
}

/// Where lesson `number`'s Kafka track has the student's code (`src/lib.rs` if it names none).
pub fn kafka_code(number: &str) -> &'static str {
    (KAFKA_TRACK.iter().find(|k| k.lesson == number)).map_or("src/lib.rs", |k| k.code)
}

impl Lesson {
    /// Its Kafka track, if it has one.
    pub fn kafka(&self) -> Option<&'static Kafka> {
        KAFKA_TRACK.iter().find(|k| k.lesson == self.number)
    }

    /// Whether the lesson has a Kafka track.
    pub fn has_kafka_track(&self) -> bool {
        self.kafka().is_some()
    }

    pub fn exercise_package(&self) -> String {
        format!("exercise-{}", self.folder)
    }

    pub fn solution_package(&self) -> String {
        format!("solution-{}", self.folder)
    }

    pub fn exercise_dir(&self, root: &Path) -> PathBuf {
        root.join("exercises").join(self.folder)
    }

    pub fn solution_dir(&self, root: &Path) -> PathBuf {
        root.join("solutions").join(self.folder)
    }

    /// Everything that belongs to this lesson alone: its tests, hints and checks.
    pub fn lesson_dir(&self, root: &Path) -> PathBuf {
        root.join("lessons").join(self.folder)
    }

    /// The one test file the exercise and the solution both run.
    pub fn test_file(&self, root: &Path) -> PathBuf {
        self.lesson_dir(root).join("exercise-tests.rs")
    }

    /// The staged hints, one `## ` section each.
    pub fn hints_file(&self, root: &Path) -> PathBuf {
        self.lesson_dir(root).join("hints.md")
    }

    /// `book/src/NN-….md`, relative to the workspace root.
    pub fn chapter(&self) -> String {
        format!("book/src/{}.md", self.folder)
    }

    /// Everything whose change can change the verdict of the exercise's tests.
    pub fn inputs(&self, root: &Path) -> Vec<PathBuf> {
        vec![
            self.exercise_dir(root),
            self.lesson_dir(root),
            root.join("lessons").join(self.domain).join("src"),
            root.join("lessons/support/kit/src"),
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
        let error = find("99").err().unwrap();
        assert!(error.contains("no lesson \"99\""), "{error}");
        assert!(error.contains("01 (check-then-act)"), "{error}");
    }

    #[test]
    fn numbers_keys_and_folders_are_unique_and_in_order() {
        for (i, a) in LESSONS.iter().enumerate() {
            assert_eq!(
                a.number,
                format!("{:02}", i + 1),
                "lessons are numbered in order"
            );
            assert!(a.folder.starts_with(a.number), "{}", a.folder);
            for b in &LESSONS[i + 1..] {
                assert_ne!(a.key, b.key);
                assert_ne!(a.folder, b.folder);
            }
        }
    }
}
