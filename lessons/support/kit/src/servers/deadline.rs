//! Every test ends. A handler that never returns (a loop, a transaction waiting on a lock that
//! its own other connection holds) would otherwise keep a test, and whoever waits on it, busy
//! for ever: the deadline ends the whole test process, says which test did not finish and what
//! that usually means, and the kit's cleanup (the watchdog, the next run's sweep) removes what
//! the process leaves.

use std::io::Write;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::Duration;

/// Overrides the default limit (`DEFAULT_LIMIT`, 60 s), in whole seconds.
pub const DEADLINE_VAR: &str = "WORKBOOK_TEST_DEADLINE";

/// Far longer than any test of a correct handler takes (the slowest, a barrier test with 32
/// workers, takes a few seconds with one core busy), and short enough to wait for.
const DEFAULT_LIMIT: Duration = Duration::from_secs(60);

/// What the runner looks for in a test process's output.
pub const DID_NOT_FINISH: &str = "did not finish within";

/// A running test's deadline; dropping it (the test's database going away) cancels it.
pub(crate) struct Deadline {
    _cancel: Sender<()>,
}

impl Deadline {
    /// Starts the clock for the test running on this thread (libtest names each test's thread
    /// after the test).
    pub(crate) fn start() -> Deadline {
        let limit = limit();
        let test = std::thread::current()
            .name()
            .filter(|name| *name != "main")
            .map_or_else(|| "a test".to_string(), |name| format!("the test `{name}`"));
        let (cancel, cancelled) = mpsc::channel::<()>();
        let _ = std::thread::Builder::new()
            .name("workbook-deadline".into())
            .spawn(move || {
                // A plain OS thread: it fires even when every runtime thread is stuck in a loop.
                if cancelled.recv_timeout(limit) == Err(RecvTimeoutError::Timeout) {
                    // Straight to stderr: the harness's capture would swallow it at exit.
                    let _ = writeln!(std::io::stderr(), "{}", message(&test, limit));
                    std::process::exit(EXIT_CODE);
                }
            });
        Deadline { _cancel: cancel }
    }
}

/// libtest's own exit code for failed tests.
const EXIT_CODE: i32 = 101;

fn limit() -> Duration {
    std::env::var(DEADLINE_VAR)
        .ok()
        .and_then(|seconds| seconds.trim().parse::<u64>().ok())
        .filter(|&seconds| seconds > 0)
        .map_or(DEFAULT_LIMIT, Duration::from_secs)
}

fn message(test: &str, limit: Duration) -> String {
    format!(
        "workbook: {test} {DID_NOT_FINISH} {} s, so its test process was stopped (with every \
         other test still running in it).\n\
         A test of this workbook takes a few seconds at most; one that never ends is usually \
         waiting on one of these:\n  \
         - a loop that never ends, or never reaches an `.await`;\n  \
         - a lock that is never released: a transaction left open (neither committed nor rolled \
         back), or a statement on a second connection (`pool` instead of `tx`) waiting for a row \
         that the handler's own transaction has locked;\n  \
         - a lock or channel in the process (a Mutex, a semaphore) that nothing releases.\n\
         To wait longer, set {DEADLINE_VAR}=<seconds>.",
        limit.as_secs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_test_and_the_limit() {
        let text = message("the test `a::b`", Duration::from_secs(7));
        assert!(text.starts_with("workbook: the test `a::b` did not finish within 7 s"));
        assert!(text.contains(DEADLINE_VAR));
    }
}
