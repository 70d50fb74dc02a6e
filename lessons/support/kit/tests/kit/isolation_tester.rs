//! The engine's isolation tester against PostgreSQL's own: each spec in `tests/isolation/` (one
//! grammar feature or one waiting rule each) is played by `kit::tester` on one fresh database
//! and by the real `isolationtester` on another, and what the two print must be the same, line
//! for line: every step, every `<waiting ...>`, every row and every error, in the same order.
//!
//! The real tester comes with PostgreSQL's client package (Debian's `postgresql-client-15`
//! installs it in its `pgxs` test folder); `.ci/run` installs it where it is missing, and this
//! test fails, saying so, when it is not found.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use kit::spec::Spec;
use kit::{Schema, TestDatabase};

/// How long a step may wait before either tester cancels it (`PGISOLATIONTIMEOUT`): no spec
/// here waits on purpose for longer than a deadlock timeout.
const STEP_WAIT: Duration = Duration::from_secs(20);

#[rstest::rstest]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn played_as_postgresql_plays_it(#[files("tests/isolation/*.spec")] path: PathBuf) {
    let text = std::fs::read_to_string(&path).unwrap();
    let spec = Spec::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let tester = real_isolationtester();

    let ours = {
        let db = empty_database().await;
        let mut out = String::new();
        let mut write = |line: &str| out.push_str(line);
        kit::tester::play(&spec, &db, STEP_WAIT, None, &mut write)
            .await
            .unwrap_or_else(|e| panic!("{}: the engine's play failed: {e}", path.display()));
        out
    };
    let theirs = {
        let db = empty_database().await;
        let output = Command::new(&tester)
            .arg(db.url())
            .env("PGISOLATIONTIMEOUT", STEP_WAIT.as_secs().to_string())
            .stdin(std::fs::File::open(&path).unwrap())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}: isolationtester failed: {}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    if ours != theirs {
        panic!(
            "{}: the engine printed something else than PostgreSQL's isolation tester, first \
             at line {}.\n--- isolationtester\n{theirs}\n--- the engine\n{ours}",
            path.display(),
            first_difference(&theirs, &ours)
        );
    }
}

async fn empty_database() -> TestDatabase {
    TestDatabase::create(&Schema::from_dirs(Vec::<PathBuf>::new()))
        .await
        .unwrap()
}

fn first_difference(a: &str, b: &str) -> usize {
    let (mut a, mut b) = (a.lines(), b.lines());
    let mut line = 1;
    while a.next() == b.next() {
        line += 1;
    }
    line
}

/// PostgreSQL's `isolationtester`: `ISOLATIONTESTER` if set, else the one in the `pgxs` folder
/// of the server's version (Debian's layout), else any version's.
fn real_isolationtester() -> PathBuf {
    if let Some(path) = std::env::var_os("ISOLATIONTESTER") {
        return PathBuf::from(path);
    }
    let found = (std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten())
    .flatten()
    .map(|version| {
        version
            .path()
            .join("lib/pgxs/src/test/isolation/isolationtester")
    })
    .filter(|path| Path::is_file(path))
    .max();
    found.unwrap_or_else(|| {
        panic!(
            "PostgreSQL's isolationtester was not found (under /usr/lib/postgresql/*/lib/pgxs/\
             src/test/isolation/). It comes with the client package: on Debian or Ubuntu, \
             `apt-get install postgresql-client-15`; elsewhere, set ISOLATIONTESTER to its path."
        )
    })
}
