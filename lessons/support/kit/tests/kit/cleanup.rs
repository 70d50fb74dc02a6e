//! A throwaway cluster must not outlive the test process, however and whenever that process
//! ends. Statics are never dropped and SIGKILL runs no code at all, so these check the mechanism
//! that depends on neither: the watchdog that makes every file and process of the cluster
//! itself, and removes them when the test process's pipe closes.
//!
//! The tests start `workbook-server` (which provisions exactly as a test process does) and end
//! it from outside. Leftovers are traced back to it by name: its run directories are
//! `wbpg-<its pid>-…`, its unfinished initdb copies `<cache>.<its pid>`. The Kafka track's
//! throwaway broker makes the same promise, checked the same way (`wbkafka-<its pid>-…`).

#![cfg(target_os = "linux")] // reads /proc to find leftover processes

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// Far more than the cleanup takes (an immediate shutdown and an `rm -rf`, well under a second,
/// or an initdb left to finish, about one). A leak never ends, so it fails at this deadline.
const DEADLINE: Duration = Duration::from_secs(30);

/// Moments after the start at which the test process is ended, with a warm initdb cache: from
/// before it has done anything, through the copy, the server's start and the `ready`
/// handshake, to a running server (a warm start takes about 0.2 s here).
const INSTANTS_MS: [u64; 14] = [0, 1, 2, 4, 7, 10, 20, 35, 50, 75, 110, 160, 230, 400];

/// The same with a cold cache, while initdb runs (about 1 s).
const COLD_INSTANTS_MS: [u64; 3] = [0, 20, 300];

/// Moments at which a test process that starts the Kafka track's broker is ended: before the
/// watchdog runs, while it makes the directory and starts the broker, and with the broker
/// listening (about 60 ms after the start here).
const BROKER_INSTANTS_MS: [u64; 9] = [0, 1, 2, 5, 10, 20, 40, 80, 300];

#[test]
fn a_killed_test_process_leaves_no_cluster_behind() {
    let Some(scratch) = Scratch::new() else {
        return;
    };
    let mut holder = scratch.start_holder(Serve::Postgres);
    let url = first_line(&mut holder);
    let Some(run_dir) = socket_dir(&url) else {
        return skip_or_panic(&mut holder);
    };
    assert!(
        run_dir.join("data").is_dir(),
        "no cluster at {}",
        run_dir.display()
    );

    holder.kill().unwrap(); // SIGKILL: no destructor, no signal handler runs
    holder.wait().unwrap();
    scratch.assert_nothing_left_of(holder.id(), "by SIGKILL");
}

/// Ends 34 test processes (about 5 s), so the root `cargo test` leaves it to CI, which runs it
/// with `cargo test -p workbook-kit --test kit cleanup -- --ignored`.
#[test]
#[ignore = "slow: ends 34 test processes; .ci/run runs it"]
fn a_test_process_ended_at_any_instant_leaves_nothing_behind() {
    let Some(scratch) = Scratch::new() else {
        return;
    };
    let mut ended = Vec::new();
    for instant in COLD_INSTANTS_MS {
        ended.extend(scratch.end_at_once_started(Serve::Postgres, instant, ", while initdb ran"));
    }
    // Warm the cache (an initdb whose test process died finishes, but no one keeps its result).
    if !scratch.start_and_stop() {
        return;
    }
    for instant in INSTANTS_MS {
        ended.extend(scratch.end_at_once_started(Serve::Postgres, instant, ""));
    }
    // The next start removes the copies that initdbs of dead test processes left unrenamed.
    scratch.start_and_stop();

    for (pid, how) in ended {
        scratch.assert_nothing_left_of(pid, &how);
    }
}

/// The same promise for the Kafka track's broker, at every instant of its start. A machine
/// without the pinned broker skips it; CI installs the broker, so there it must run.
#[test]
#[ignore = "slow: ends 18 test processes; .ci/run runs it"]
fn a_test_process_that_started_a_broker_leaves_nothing_behind() {
    let Some(scratch) = Scratch::new() else {
        return;
    };
    let mut holder = scratch.start_holder(Serve::Kafka);
    let bootstrap = first_line(&mut holder);
    if bootstrap.trim().is_empty() {
        return skip_or_panic(&mut holder);
    }
    drop(holder.stdin.take());
    holder.wait().unwrap();
    scratch.assert_nothing_left_of(holder.id(), "normally");
    let mut ended = Vec::new();
    for instant in BROKER_INSTANTS_MS {
        ended.extend(scratch.end_at_once_started(Serve::Kafka, instant, ""));
    }
    for (pid, how) in ended {
        scratch.assert_nothing_left_of(pid, &how);
    }
}

/// What the holder provisions.
#[derive(Clone, Copy)]
enum Serve {
    Postgres,
    Kafka,
}

/// A private temporary directory (`TMPDIR`) for the servers started here, so that the initdb
/// cache starts cold and its unfinished copies are ours alone.
struct Scratch {
    tmp: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Option<Scratch> {
        if std::env::var_os("DATABASE_URL").is_some() {
            eprintln!("DATABASE_URL is set: no throwaway cluster to check");
            return None;
        }
        let tmp = tempfile::tempdir().unwrap();
        // Like /tmp: when the tests run as root, the server runs as `postgres` and writes here.
        std::fs::set_permissions(
            tmp.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o1777),
        )
        .unwrap();
        Some(Scratch { tmp })
    }

    fn start_holder(&self, serve: Serve) -> Child {
        let mut command = Command::new(env!("CARGO_BIN_EXE_workbook-server"));
        if let Serve::Kafka = serve {
            // The kit's own broker, even where a cluster of the reader's is configured.
            command.arg("--kafka").env_remove("KAFKA_BOOTSTRAP_SERVERS");
        }
        command
            .env("WORKBOOK_POSTGRES", "local")
            .env("TMPDIR", self.tmp.path())
            .env_remove("DATABASE_URL")
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Starts a test process, and ends it `instant_ms` later with kill -9, then again with
    /// Ctrl-C. Returns each one's pid and how it was ended.
    fn end_at_once_started(
        &self,
        serve: Serve,
        instant_ms: u64,
        during: &str,
    ) -> Vec<(u32, String)> {
        let instant = Duration::from_millis(instant_ms);
        let mut ended = Vec::new();
        for signal in [Signal::SIGKILL, Signal::SIGINT] {
            let mut holder = self.start_holder(serve);
            let pid = Pid::from_raw(holder.id() as i32);
            std::thread::sleep(instant); // when to strike: a parameter, not a wait for anything
            match signal {
                // kill -9 of the test process alone.
                Signal::SIGKILL => kill(pid, signal),
                // Ctrl-C: the terminal signals the whole foreground process group.
                _ => killpg(pid, signal),
            }
            .unwrap();
            holder.wait().unwrap();
            ended.push((
                holder.id(),
                format!("by {signal} {instant:?} after it started{during}"),
            ));
        }
        ended
    }

    /// A test process that starts its cluster and ends normally; false if there are no local
    /// binaries to start one with.
    fn start_and_stop(&self) -> bool {
        let mut holder = self.start_holder(Serve::Postgres);
        if socket_dir(&first_line(&mut holder)).is_none() {
            skip_or_panic(&mut holder);
            return false;
        }
        drop(holder.stdin.take()); // workbook-server ends on Enter or end of input
        holder.wait().unwrap();
        self.assert_nothing_left_of(holder.id(), "normally");
        true
    }

    /// Waits (up to the deadline) until no process and no file of `pid`'s cluster is left.
    fn assert_nothing_left_of(&self, pid: u32, how: &str) {
        let started = Instant::now();
        loop {
            let left = self.leftovers_of(pid);
            if left.is_empty() {
                return;
            }
            assert!(
                started.elapsed() < DEADLINE,
                "{DEADLINE:?} after test process {pid} was ended {how}, its cluster is still there:\n{}",
                left.join("\n")
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn leftovers_of(&self, pid: u32) -> Vec<String> {
        let mut left = Vec::new();
        for dir in [Path::new("/dev/shm"), self.tmp.path()] {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if belongs_to(&entry.file_name().to_string_lossy(), pid) {
                    left.push(format!("directory {}", entry.path().display()));
                }
            }
        }
        for process in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(cmdline) = std::fs::read(process.path().join("cmdline")) else {
                continue;
            };
            let args: Vec<String> = cmdline
                .split(|&byte| byte == 0)
                .map(|arg| String::from_utf8_lossy(arg).into_owned())
                .collect();
            // An argument, or any path component of one: `-D /dev/shm/wbpg-42-x/data`; or the
            // working directory (the broker's arguments name no directory of its own).
            let cwd = std::fs::read_link(process.path().join("cwd"))
                .map(|cwd| cwd.display().to_string())
                .unwrap_or_default();
            let ours = args
                .iter()
                .chain([&cwd])
                .flat_map(|arg| arg.split(['/', ' ', '\'']))
                .any(|part| belongs_to(part, pid));
            if ours {
                left.push(format!(
                    "process {}: {}",
                    process.file_name().display(),
                    args.join(" ")
                ));
            }
        }
        left
    }
}

/// `wbpg-<pid>` or `wbkafka-<pid>` (a watchdog's argument), either followed by `-XXXXXX` (a run
/// directory), or `idempotency-workbook-initdb-…-uid<uid>.<pid>` (an unfinished initdb copy).
fn belongs_to(name: &str, pid: u32) -> bool {
    let run_of = |run: String| name == run || name.starts_with(&format!("{run}-"));
    run_of(format!("wbpg-{pid}"))
        || run_of(format!("wbkafka-{pid}"))
        || (name.starts_with("idempotency-workbook-initdb-")
            && name
                .rsplit_once('.')
                .is_some_and(|(_, p)| p == pid.to_string()))
}

fn first_line(holder: &mut Child) -> String {
    let mut url = String::new();
    BufReader::new(holder.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    url
}

/// A machine that gets its server from Docker has no local cluster to check; one without the
/// pinned broker (outside CI, which installs it) has no broker to check.
fn skip_or_panic(holder: &mut Child) {
    holder.wait().unwrap();
    let mut why = String::new();
    let _ = std::io::Read::read_to_string(&mut holder.stderr.take().unwrap(), &mut why);
    if why.contains("no initdb/pg_ctl found") {
        eprintln!("no local PostgreSQL binaries: no throwaway cluster to check");
        return;
    }
    if why.contains("no Kafka-protocol broker") && std::env::var_os("CI").is_none() {
        eprintln!("the pinned broker is not installed: no throwaway broker to check");
        return;
    }
    panic!("workbook-server did not start a local cluster: {why}");
}

/// `postgresql://postgres@%2Fdev%2Fshm%2Fwbpg-1-XXXX:5432/postgres` → `/dev/shm/wbpg-1-XXXX`
fn socket_dir(url: &str) -> Option<PathBuf> {
    let host = url.trim().split_once('@')?.1.split_once(':')?.0;
    Some(PathBuf::from(host.replace("%2F", "/")))
}
