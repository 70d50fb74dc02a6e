//! When to give up on a test binary. Not after a fixed time from its start: a binary's length
//! grows with the catalogue (verify's wrong fixes ran for over three minutes on a busy machine
//! while every one of its tests was progressing). The clock restarts at every sign of progress
//! in what cargo and libtest print: a test binary started, a test finished. Only a binary in
//! which no test has finished for a long time is stopped, and then libtest has already named the
//! tests still running ("has been running for over 60 seconds").

use std::time::{Duration, Instant};

/// The kit's per-test deadline, in seconds, as the kit reads it (`kit::DEADLINE_VAR`).
const KIT_DEADLINE_VAR: &str = "WORKBOOK_TEST_DEADLINE";
const KIT_DEADLINE: Duration = Duration::from_secs(60);

/// How long a binary may go without a test finishing: four times the kit's per-test deadline,
/// which ends any one test that runs over it, with a message of its own. With two tests at a
/// time, no test finishing for that long means none of the running ones is being timed by the
/// kit, or the machine is far busier than any test allows for.
pub fn quiet_limit() -> Duration {
    let kit = std::env::var(KIT_DEADLINE_VAR)
        .ok()
        .and_then(|seconds| seconds.trim().parse::<u64>().ok())
        .filter(|&seconds| seconds > 0)
        .map_or(KIT_DEADLINE, Duration::from_secs);
    kit * 4
}

/// What the output has shown so far.
#[derive(Debug, Default)]
pub struct ProgressClock {
    /// The last sign of progress; `None` while cargo is still building (not on the clock).
    last: Option<Instant>,
    finished: usize,
    /// Tests libtest reported as running long, which have not finished since.
    slow: Vec<String>,
}

/// Why the tests were stopped: no test finished for `quiet`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stall {
    pub quiet: Duration,
    /// Tests that had finished before, in every binary so far.
    pub finished: usize,
    /// The tests libtest reported as still running, by name.
    pub still_running: Vec<String>,
}

impl ProgressClock {
    /// A line cargo wrote to stderr: `Running …` starts a test binary.
    pub fn stderr_line(&mut self, line: &str) {
        if line.trim_start().starts_with("Running ") {
            self.last = Some(Instant::now());
        }
    }

    /// A line libtest wrote to stdout: `test NAME ... ok` (or `FAILED`, `ignored`) ends a test;
    /// `test NAME has been running for over 60 seconds` names one still running.
    pub fn stdout_line(&mut self, line: &str) {
        let Some(rest) = line.trim_end().strip_prefix("test ") else {
            return;
        };
        if let Some((name, _)) = rest.split_once(" has been running for over ") {
            self.slow.push(name.to_string());
            return;
        }
        let Some((name, result)) = rest.rsplit_once(" ... ") else {
            return;
        };
        // A lesson's harness pads the names into a column.
        let name = name.trim_end();
        if result == "ok" || result == "FAILED" || result.starts_with("ignored") {
            self.finished += 1;
            self.slow.retain(|slow| slow != name);
            self.last = Some(Instant::now());
        }
    }

    /// `Some` once the output has been quiet for longer than `limit` at `now`, with what it
    /// showed.
    pub fn stalled(&self, now: Instant, limit: Duration) -> Option<Stall> {
        let quiet = now.saturating_duration_since(self.last?);
        (quiet > limit).then(|| Stall {
            quiet: limit,
            finished: self.finished,
            still_running: self.slow.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn building_is_not_on_the_clock() {
        let clock = ProgressClock::default();
        let much_later = Instant::now() + Duration::from_secs(3600);
        assert_eq!(clock.stalled(much_later, Duration::ZERO), None);
    }

    #[test]
    fn a_finished_test_restarts_the_clock_and_a_slow_one_is_named_until_it_ends() {
        let mut clock = ProgressClock::default();
        clock.stderr_line("     Running tests/wrong_fixes.rs (target/debug/deps/x)");
        clock.stdout_line("test lesson_01_a has been running for over 60 seconds");
        clock.stdout_line("test lesson_01_b has been running for over 60 seconds");
        clock.stdout_line("test lesson_01_a ... ok");
        clock.stdout_line("test lesson_01_c ... ignored, the full sweep");
        clock.stdout_line("test result: ok. 2 passed; 0 failed; 1 ignored");
        let minute = Duration::from_secs(60);
        let later = Instant::now() + 2 * minute;
        let stall = clock.stalled(later, minute).expect("quiet for two minutes");
        assert_eq!(stall.finished, 2);
        assert_eq!(stall.still_running, ["lesson_01_b"]);
        assert_eq!(clock.stalled(later, 3 * minute), None);
    }
}
