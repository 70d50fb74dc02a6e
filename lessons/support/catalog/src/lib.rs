//! The lessons, listed once. The runner (`cargo workbook`), the maintainers' checks (`verify`,
//! `repeat`) and the book's checks read this list; a check in the root `cargo test` fails when
//! the book's table of contents, the README's lessons table, the workspace's members or the
//! runner's copy of the shipped exercises disagree with it.
//!
//! It has no dependencies, so the runner can read it without building any lesson.

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
    /// What the shipped exercise must fail with, in the checks' words.
    pub intended_failure: &'static str,
}

pub const LESSONS: &[Lesson] = &[
    Lesson {
        number: "01",
        key: "check-then-act",
        title: "Check-then-act vs. a primary key",
        folder: "01-check-then-act",
        domain: "01-check-then-act",
        schema: "ledger",
        intended_failure: "an event credited twice",
    },
    Lesson {
        number: "02",
        key: "on-conflict",
        title: "Guard 1: let the insert decide",
        folder: "02-on-conflict",
        domain: "order-saga",
        schema: "order_saga",
        intended_failure: "an order announced twice",
    },
    Lesson {
        number: "03",
        key: "one-transaction",
        title: "The record and the effect commit together",
        folder: "03-one-transaction",
        domain: "order-saga",
        schema: "order_saga",
        intended_failure: "a lost event, or a duplicate decided without waiting",
    },
    Lesson {
        number: "04",
        key: "for-update",
        title: "Guard 2: a terminal state, read under FOR UPDATE",
        folder: "04-for-update",
        domain: "order-saga",
        schema: "order_saga",
        intended_failure: "an order resolved twice by contradicting events",
    },
    Lesson {
        number: "05",
        key: "outbox",
        title: "The transaction is the third guard: a transactional outbox",
        folder: "05-outbox",
        domain: "order-saga",
        schema: "order_saga",
        intended_failure: "an order resolved but never announced",
    },
    Lesson {
        number: "06",
        key: "deterministic-ids",
        title: "Deterministic ids upstream",
        folder: "06-deterministic-ids",
        domain: "06-deterministic-ids",
        schema: "payment_step",
        intended_failure: "a customer charged twice",
    },
    Lesson {
        number: "07",
        key: "at-least-once",
        title: "At-least-once delivery, exactly-once effect",
        folder: "07-at-least-once",
        domain: "07-at-least-once",
        schema: "consumer_log",
        intended_failure: "an event lost past the committed offset, or applied out of the log's order",
    },
    Lesson {
        number: "08",
        key: "outbox-relay",
        title: "The outbox relay and the consumer's inbox",
        folder: "08-outbox-relay",
        domain: "08-outbox-relay",
        schema: "outbox_relay",
        intended_failure: "an outbox row the relay never publishes, or a republished one shipped twice",
    },
    Lesson {
        number: "09",
        key: "retention",
        title: "Retention: how long the dedupe table remembers",
        folder: "09-retention",
        domain: "09-retention",
        schema: "retention",
        intended_failure: "an event applied twice (its row pruned inside the window, or a copy let in on another day), or a table that never shrinks",
    },
    Lesson {
        number: "10",
        key: "compensation",
        title: "Compensation: a forward action, not a rollback",
        folder: "10-compensation",
        domain: "10-compensation",
        schema: "compensation",
        intended_failure: "a reservation released twice, released after it was consumed, or settled by more than one delivery, or a release that fails because it came before the reservation",
    },
    Lesson {
        number: "11",
        key: "http-keys",
        title: "Idempotency keys: the key is a row, the response is stored",
        folder: "11-http-keys",
        domain: "11-http-keys",
        schema: "http_keys",
        intended_failure: "one payment made twice under one idempotency key, when a client's retries overlap",
    },
    Lesson {
        number: "12",
        key: "atomic-phases",
        title: "A charge at a provider, between atomic phases",
        folder: "12-atomic-phases",
        domain: "12-atomic-phases",
        schema: "atomic_phases",
        intended_failure: "a card charged twice at the provider for one request, when the provider's answer is lost",
    },
    Lesson {
        number: "13",
        key: "serializable-retry",
        title: "Isolation levels, and retrying the whole transaction",
        folder: "13-serializable-retry",
        domain: "13-serializable-retry",
        schema: "card_limits",
        intended_failure: "an authorization the database aborted for a conflict (40001), handed back instead of run again",
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

/// The lessons that can also run on a real Kafka-protocol broker (`cargo workbook check NN
/// --kafka`): their exercise has a `kafka` feature and a `kafka` test target.
pub const KAFKA_TRACK: &[&str] = &["07", "08"];

/// Where a lesson's Kafka track has the student's code: lesson 07's own `src/kafka.rs`, or the
/// same `src/lib.rs` as the PostgreSQL track (lesson 08: the relay and consumer do not change,
/// the broker does).
pub fn kafka_code(lesson: &str) -> &'static str {
    match lesson {
        "07" => "src/kafka.rs",
        _ => "src/lib.rs",
    }
}

/// The Kafka track's tests that each shipped exercise fails, with words its failure says:
/// `cargo workbook repeat NN --kafka` counts a run as caught only when it fails saying them
/// (`.ci/kafka-track` holds the shipped exercise to the same).
pub const KAFKA_CAUGHT: &[KafkaCaught] = &[
    KafkaCaught {
        lesson: "07",
        test: "on_kafka_a_consumer_that_dies_mid_batch_loses_nothing",
        says: "were never handled",
    },
    KafkaCaught {
        lesson: "07",
        test: "on_kafka_the_soak_loses_nothing_and_applies_nothing_twice",
        says: "were never handled",
    },
    KafkaCaught {
        lesson: "08",
        test: "on_kafka_a_relay_restarted_with_a_new_producer_ships_once",
        says: "the warehouse shipped it 2 times",
    },
    KafkaCaught {
        lesson: "08",
        test: "on_kafka_a_consumer_that_dies_before_its_commit_ships_once",
        says: "the warehouse shipped it 2 times",
    },
];

/// A Kafka test a shipped exercise fails, and the words of its failure.
#[derive(Debug, Clone, Copy)]
pub struct KafkaCaught {
    pub lesson: &'static str,
    pub test: &'static str,
    pub says: &'static str,
}

impl Lesson {
    /// Whether the lesson has a Kafka track.
    pub fn has_kafka_track(&self) -> bool {
        KAFKA_TRACK.contains(&self.number)
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
