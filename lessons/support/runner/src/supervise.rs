//! Running a child cargo so that it always ends, and ends whole: with a deadline once its tests
//! start, with Ctrl-C passed on, and, either way, with every process it started stopped.
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

/// The child's process group while one runs, else 0.
static CHILD_GROUP: AtomicI32 = AtomicI32::new(0);
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Called with each line the child writes to stderr, as it comes (cargo's build progress).
pub type OnLine = Box<dyn FnMut(&str) + Send>;

/// What a supervised run printed, and whether the deadline ended it.
pub struct Finished {
    pub output: Output,
    pub timed_out: Option<Duration>,
}

/// Runs `command` to its end. `limit` counts from the moment cargo starts a test binary (its
/// `Running …` line), again for each binary: building, which can take minutes the first time,
/// is not on the clock.
pub fn run(
    mut command: Command,
    limit: Duration,
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

    let tests_started = Arc::new(Mutex::new(None::<Instant>));
    let stdout = read_all(child.stdout.take().expect("piped"), None, None);
    let stderr = read_all(
        child.stderr.take().expect("piped"),
        Some(Arc::clone(&tests_started)),
        on_stderr_line,
    );

    let mut timed_out = None;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        let started = *tests_started.lock().expect("not poisoned");
        if timed_out.is_none() && started.is_some_and(|at| at.elapsed() > limit) {
            timed_out = Some(limit);
            let _ = killpg(group, Signal::SIGKILL);
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
    Ok(Finished { output, timed_out })
}

/// Reads a pipe to its end on a thread of its own (a full pipe would stall the child). On
/// stderr, notes when cargo starts each test binary, and hands each line to `on_line`.
fn read_all(
    pipe: impl Read + Send + 'static,
    tests_started: Option<Arc<Mutex<Option<Instant>>>>,
    mut on_line: Option<OnLine>,
) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut all = Vec::new();
        let mut line = Vec::new();
        while reader.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
            let text = String::from_utf8_lossy(&line);
            if let Some(started) = &tests_started
                && text.trim_start().starts_with("Running ")
            {
                *started.lock().expect("not poisoned") = Some(Instant::now());
            }
            if let Some(on_line) = on_line.as_mut() {
                on_line(&text);
            }
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
    fn a_child_that_outlives_its_deadline_is_ended_with_its_whole_group() {
        // "Running" starts the clock; the grandchild (sleep) must end with the child.
        let mut command = Command::new("sh");
        command.args(["-c", "echo '     Running tests/x.rs' >&2; sleep 600 & wait"]);
        let finished = run(command, Duration::from_millis(300), None).unwrap();
        assert_eq!(finished.timed_out, Some(Duration::from_millis(300)));
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
        assert_eq!(finished.timed_out, None);
        assert_eq!(String::from_utf8_lossy(&finished.output.stdout), "done\n");
    }
}
