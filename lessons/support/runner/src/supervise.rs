//! Running a child cargo so that it always ends, and ends whole: stopped once its tests stop
//! making progress, with Ctrl-C passed on, and, either way, with every process it started stopped.
//!
//! The child runs in a process group of its own, so that the runner can end the test binary
//! too (ending only `cargo` would leave the tests running). A terminal's Ctrl-C reaches only its
//! foreground group, the runner's, so the runner passes it on.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::progress_clock::{ProgressClock, Stall};

/// The child's process group while one runs, else 0.
static CHILD_GROUP: AtomicI32 = AtomicI32::new(0);
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Called with each line the child writes, as it comes (cargo's build progress, libtest's results).
pub type OnLine = Box<dyn FnMut(&str) + Send>;

/// What a supervised run printed, and whether it was stopped for want of progress.
pub struct Finished {
    pub output: Output,
    pub stalled: Option<Stall>,
}

/// Runs `command` to its end, or until no test has finished for `quiet_limit` (see
/// [`ProgressClock`]): building, which can take minutes the first time, is not on the clock,
/// and neither is a long binary whose tests keep finishing.
pub fn run(
    mut command: Command,
    quiet_limit: Duration,
    on_stderr_line: Option<OnLine>,
) -> std::io::Result<Finished> {
    pass_on_ctrl_c();
    let mut child = command
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let group = Pid::from_raw(child.id() as i32);
    CHILD_GROUP.store(group.as_raw(), Ordering::SeqCst);

    let clock = Arc::new(Mutex::new(ProgressClock::default()));
    let on_stdout_line: OnLine = {
        let clock = Arc::clone(&clock);
        Box::new(move |line| clock.lock().expect("not poisoned").stdout_line(line))
    };
    let on_stderr_line: OnLine = {
        let clock = Arc::clone(&clock);
        let mut theirs = on_stderr_line;
        Box::new(move |line| {
            clock.lock().expect("not poisoned").stderr_line(line);
            if let Some(theirs) = theirs.as_mut() {
                theirs(line);
            }
        })
    };
    let stdout = read_all(child.stdout.take().expect("piped"), on_stdout_line);
    let stderr = read_all(child.stderr.take().expect("piped"), on_stderr_line);

    let mut stalled = None;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if stalled.is_none() {
            stalled = clock
                .lock()
                .expect("not poisoned")
                .stalled(Instant::now(), quiet_limit);
            if stalled.is_some() {
                let _ = killpg(group, Signal::SIGKILL);
            }
        }
        // Not a test's sleep-and-hope: how often a supervisor looks at its child.
        std::thread::sleep(Duration::from_millis(50));
    };
    CHILD_GROUP.store(0, Ordering::SeqCst);
    let output = Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    };
    if INTERRUPTED.load(Ordering::SeqCst) {
        eprintln!("interrupted: the tests were stopped.");
        std::process::exit(130);
    }
    Ok(Finished { output, stalled })
}

/// Reads a pipe to its end on a thread of its own (a full pipe would stall the child), handing
/// each line to `on_line` as it comes.
fn read_all(
    pipe: impl Read + Send + 'static,
    mut on_line: OnLine,
) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut all = Vec::new();
        let mut line = Vec::new();
        while reader.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
            on_line(&String::from_utf8_lossy(&line));
            all.append(&mut line);
        }
        all
    })
}

fn pass_on_ctrl_c() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            INTERRUPTED.store(true, Ordering::SeqCst);
            match CHILD_GROUP.load(Ordering::SeqCst) {
                0 => std::process::exit(130),
                group => {
                    let _ = killpg(Pid::from_raw(group), Signal::SIGINT);
                }
            }
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_whose_tests_stop_finishing_is_ended_with_its_whole_group() {
        // "Running" starts the clock; the grandchild (sleep) must end with the child.
        let mut command = Command::new("sh");
        command.args([
            "-c",
            "echo '     Running tests/x.rs' >&2; echo 'test a ... ok'; \
             echo 'test b has been running for over 60 seconds'; sleep 600 & wait",
        ]);
        let finished = run(command, Duration::from_millis(300), None).unwrap();
        let stall = finished.stalled.expect("stopped");
        assert_eq!((stall.finished, stall.still_running), (1, vec!["b".into()]));
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(finished.output.status.signal(), Some(9), "ended by SIGKILL");
    }

    #[test]
    fn building_is_not_on_the_clock() {
        let mut command = Command::new("sh");
        command.args([
            "-c",
            "sleep 0.5; echo '     Running tests/x.rs' >&2; echo done",
        ]);
        let finished = run(command, Duration::from_millis(300), None).unwrap();
        assert_eq!(finished.stalled, None);
        assert_eq!(String::from_utf8_lossy(&finished.output.stdout), "done\n");
    }

    /// A binary longer than the limit is not stopped while its tests keep finishing.
    #[test]
    fn tests_that_keep_finishing_are_not_stopped() {
        let mut command = Command::new("sh");
        command.args([
            "-c",
            "echo '     Running tests/x.rs' >&2; \
             for t in $(seq 20); do sleep 0.05; echo \"test t$t ... ok\"; done",
        ]);
        // A second of tests, a twentieth of a second apart: ten times the limit's margin.
        let finished = run(command, Duration::from_millis(500), None).unwrap();
        assert_eq!(finished.stalled, None);
        assert!(finished.output.status.success());
    }
}
