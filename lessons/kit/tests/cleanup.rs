//! A throwaway cluster must not outlive the test process, however that process ends. Statics
//! are never dropped and SIGKILL runs no code at all, so this checks the mechanism that does
//! not depend on either: the watchdog that cleans up when the process's pipe closes.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far more than the cleanup takes (an immediate shutdown and an `rm -rf`, well under a second).
const DEADLINE: Duration = Duration::from_secs(30);

#[test]
fn a_killed_test_process_leaves_no_cluster_behind() {
    if std::env::var_os("DATABASE_URL").is_some() {
        eprintln!("DATABASE_URL is set: no throwaway cluster to check");
        return;
    }
    let mut holder = Command::new(env!("CARGO_BIN_EXE_workbook-server"))
        .env("WORKBOOK_POSTGRES", "local")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut url = String::new();
    BufReader::new(holder.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    if url.is_empty() {
        holder.wait().unwrap();
        let mut why = String::new();
        let _ = std::io::Read::read_to_string(&mut holder.stderr.take().unwrap(), &mut why);
        if why.contains("no initdb/pg_ctl found") {
            // A machine that gets its server from Docker has no local cluster to check.
            eprintln!("no local PostgreSQL binaries: no throwaway cluster to check");
            return;
        }
        panic!("workbook-server did not start a local cluster: {why}");
    }
    let run_dir = socket_dir(&url);
    assert!(
        run_dir.join("data").is_dir(),
        "no cluster at {}",
        run_dir.display()
    );

    holder.kill().unwrap(); // SIGKILL: no destructor, no signal handler runs
    holder.wait().unwrap();

    let started = Instant::now();
    while run_dir.exists() {
        assert!(
            started.elapsed() < DEADLINE,
            "{} still exists {DEADLINE:?} after its test process was killed",
            run_dir.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `postgresql://postgres@%2Ftmp%2Fwbpg-XXXX:5432/postgres` → `/tmp/wbpg-XXXX`
fn socket_dir(url: &str) -> PathBuf {
    let host = url
        .trim()
        .split_once('@')
        .and_then(|(_, rest)| rest.split_once(':'))
        .map(|(host, _)| host)
        .unwrap_or_else(|| panic!("not a local cluster's URL: {url}"));
    PathBuf::from(host.replace("%2F", "/"))
}
