//! A test that never ends is ended, with a message that names it: checked on a real hang, a
//! busy loop in a test of this very file, run in a child process.

use std::process::{Command, Stdio};

use kit::{DEADLINE_VAR, DID_NOT_FINISH, Schema, TestDatabase};

const HANG: &str = "WORKBOOK_KIT_HANG_ON_PURPOSE";

/// Does nothing unless the test below runs it, in a child process, with `HANG` set.
#[tokio::test]
async fn a_handler_that_loops_for_ever() {
    if std::env::var_os(HANG).is_none() {
        return;
    }
    let migrations = tempfile::tempdir().unwrap();
    let _db = TestDatabase::create(&Schema::from_dirs([migrations.path()]))
        .await
        .unwrap();
    #[allow(clippy::empty_loop)]
    loop {} // never awaits: the runtime's only thread is gone for good
}

#[tokio::test]
async fn a_test_that_never_ends_is_stopped_and_named() {
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "deadline::a_handler_that_loops_for_ever",
            "--nocapture",
        ])
        .env(HANG, "1")
        .env(DEADLINE_VAR, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("no PostgreSQL server is available") {
        eprintln!("no server: the deadline starts with a database, nothing to check");
        return;
    }
    assert_eq!(output.status.code(), Some(101), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the test `deadline::a_handler_that_loops_for_ever` {DID_NOT_FINISH} 1 s"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("a loop that never ends"), "{stderr}");

    // The stopped process could not drop its database; on a shared server the next test
    // process does (on a throwaway one, the server went with the process).
    let server = kit::server().unwrap();
    if server.backend == kit::Backend::DatabaseUrl {
        let mut admin = <sqlx::PgConnection as sqlx::Connection>::connect(&server.url)
            .await
            .unwrap();
        let dropped = kit::drop_leftovers(&mut admin).await.unwrap();
        let theirs = format!("_{pid}_");
        assert!(
            dropped.iter().any(|name| name.contains(&theirs)),
            "{dropped:?}"
        );
    }
}
