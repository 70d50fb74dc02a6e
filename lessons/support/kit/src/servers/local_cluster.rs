//! A throwaway PostgreSQL cluster started from the server binaries installed on this machine.
//!
//! It listens only on a unix socket in a private temporary directory (no TCP port to collide
//! on), runs with durability off (a test database is worth nothing after the test), and is
//! removed when the test process ends, even if it is killed. A measurement may ask for a durable
//! one instead ([`crate::durable_local_server`]).

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::KitError;
use crate::servers::backend::{BACKEND_VAR, Backend, Server};

/// The oldest server the kit supports: `DROP DATABASE … WITH (FORCE)` arrived in 13.
const MINIMUM_MAJOR_VERSION: u32 = 13;

/// Owns the cluster's lifetime, and makes every file and process the cluster needs itself, so
/// that there is no instant at which the test process can die and leave something behind that
/// no one will remove. It creates the run directory, copies the data directory, starts the
/// server, prints `ready <dir>`, then waits for its stdin to close, which happens when the test
/// process exits for any reason (even SIGKILL, which no destructor survives), and only then
/// stops the server and deletes the directory.
///
/// The server's settings are a test server's: durability off (a test database is worth nothing
/// after the test; `$5` says so, and a measurement may pass `DURABLE` instead), and deadlocks
/// detected after 100 ms instead of a second, since a handler that deadlocks (a wrong fix under
/// FOR SHARE, say) can deadlock once per worker of a barrier.
///
/// It runs in a process group of its own, so a Ctrl-C aimed at the tests does not kill it before
/// it cleans up. It ignores SIGPIPE: if the test process dies before reading `ready`, that
/// line's write fails instead of killing the shell with the server already running.
const WATCHDOG: &str = r#"
trap '' PIPE HUP INT
bindir=$1 template=$2 scratch=$3 prefix=$4 settings=$5
if ! run=$(mktemp -d "$scratch/$prefix-XXXXXX"); then
    echo "could not create a directory in $scratch"; exit 1
fi
stop_and_remove() {
    "$bindir/pg_ctl" stop -D "$run/data" -m immediate >/dev/null 2>&1
    rm -rf "$run"
}
if ! cp -R -p "$template" "$run/data"; then
    echo "could not copy the initialised data directory $template"; rm -rf "$run"; exit 1
fi
if ! "$bindir/pg_ctl" start -w -t 60 -D "$run/data" -l "$run/server.log" \
    -o "-k '$run' -c listen_addresses='' -c max_connections=300 $settings -c max_wal_size=4GB -c deadlock_timeout=100ms" \
    >/dev/null 2>&1; then
    echo "the server did not start; its log says:"; tail -n 20 "$run/server.log"
    stop_and_remove; exit 1
fi
echo "ready $run"
cat >/dev/null
stop_and_remove
"#;

/// `sh` (as `sh` is: a command that may switch users) set up to run a watchdog `script` with
/// `args` (`$1`, `$2`, …) in `scratch`. It runs in a process group of its own, so a Ctrl-C aimed
/// at the tests does not kill it before it cleans up; its stdin is the lifeline, its stdout says
/// when it is ready.
pub(crate) fn watchdog<'a>(
    sh: &'a mut Command,
    script: &str,
    args: impl IntoIterator<Item = impl AsRef<std::ffi::OsStr>>,
    scratch: &Path,
) -> &'a mut Command {
    sh.arg("-c")
        .arg(script)
        .arg("sh")
        .args(args)
        .current_dir(scratch)
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
}

/// The start of every run directory's name: `wbpg-<pid of the test process>-`, so that a
/// directory or a server process can always be traced back to the test process it served.
pub fn run_dir_prefix(test_process: u32) -> String {
    format!("wbpg-{test_process}")
}

/// A test server's durability: none (a test database is worth nothing after the test).
const NOT_DURABLE: &str = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off";

/// A production server's durability, each setting at its default: every commit that wrote waits
/// for its WAL to reach the disk, and a page's first change after a checkpoint writes it whole.
const DURABLE: &str = "-c fsync=on -c synchronous_commit=on -c full_page_writes=on";

pub(crate) fn start() -> Result<Server, KitError> {
    start_with(NOT_DURABLE, fastest_scratch_space(), "")
}

/// The same throwaway cluster, but durable, its data in the temporary directory (`TMPDIR`, or
/// /tmp) instead of memory: for measuring what durability costs, not for tests.
pub(crate) fn start_durable() -> Result<Server, KitError> {
    start_with(
        DURABLE,
        std::env::temp_dir(),
        ", durable (fsync, synchronous_commit and full_page_writes on)",
    )
}

fn start_with(settings: &str, scratch: PathBuf, kind: &str) -> Result<Server, KitError> {
    let bindir = find_bindir().ok_or_else(|| {
        KitError::provision(
            "local binaries",
            "no initdb/pg_ctl found (looked in PATH, `pg_config --bindir`, /usr/lib/postgresql/*/bin \
             and Homebrew's prefixes)",
        )
    })?;
    let major = major_version(&bindir)?;
    let owner = ServerOwner::for_this_process()?;
    let template = initialised_data_directory(&bindir, major, &owner)?;

    // A short path: unix socket paths are limited to about 100 bytes (103 on macOS).
    let prefix = PathBuf::from(run_dir_prefix(std::process::id()));
    let mut sh = owner.command("sh");
    let mut watchdog = watchdog(
        &mut sh,
        WATCHDOG,
        [
            bindir.as_os_str(),
            template.as_os_str(),
            scratch.as_os_str(),
            prefix.as_os_str(),
            settings.as_ref(),
        ],
        &scratch,
    )
    .spawn()
    .map_err(|e| KitError::provision("local binaries", format!("could not run sh: {e}")))?;

    let mut said = String::new();
    let mut stdout = BufReader::new(watchdog.stdout.take().expect("stdout is piped"));
    let mut line = String::new();
    let run = loop {
        line.clear();
        if stdout.read_line(&mut line).unwrap_or(0) == 0 {
            return Err(KitError::provision(
                format!("the binaries in {}", bindir.display()),
                said.trim(),
            ));
        }
        match line.trim_end().strip_prefix("ready ") {
            Some(dir) => break PathBuf::from(dir),
            None => said.push_str(&line),
        }
    };

    let socket_dir = run.display().to_string().replace('/', "%2F");
    Ok(Server::new(
        Backend::LocalBinaries,
        format!("postgresql://postgres@{socket_dir}:5432/postgres"),
        format!(
            "started a throwaway PostgreSQL {major}{kind} from {} (socket in {}), removed when the tests end",
            bindir.display(),
            run.display()
        ),
        watchdog.stdin.take(),
    ))
}

/// Where the cluster lives. Every test creates a database, and `CREATE DATABASE` copies a few
/// hundred small files: measured on a virtual disk, 100–300 ms each; in memory (tmpfs), 10–35 ms.
/// So use /dev/shm when it has room (a Docker container's default 64 MiB does not), else the
/// temporary directory (`TMPDIR`, or /tmp).
fn fastest_scratch_space() -> PathBuf {
    const ROOM_NEEDED: u64 = 1 << 30;
    let shm = Path::new("/dev/shm");
    // The field types differ between platforms (u64 on Linux, u32 on macOS).
    #[allow(clippy::useless_conversion)]
    let roomy = nix::sys::statvfs::statvfs(shm).is_ok_and(|fs| {
        u64::from(fs.blocks_available()) * u64::from(fs.fragment_size()) >= ROOM_NEEDED
    });
    if roomy {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// `initdb` takes about a second; copying its result takes a fifth of that. The result is kept
/// per server version and per user in the temporary directory (`TMPDIR`, or /tmp) and copied
/// for every test process.
fn initialised_data_directory(
    bindir: &Path,
    major: u32,
    owner: &ServerOwner,
) -> Result<PathBuf, KitError> {
    let tmp = std::env::temp_dir();
    let cached = tmp.join(format!(
        "idempotency-workbook-initdb-pg{major}-uid{}",
        owner.uid
    ));
    remove_unfinished_copies(&cached);
    if cached.join("PG_VERSION").exists() {
        return trusted(cached, owner);
    }
    let fresh = PathBuf::from(format!("{}.{}", cached.display(), std::process::id()));
    let output = owner
        .command(bindir.join("initdb"))
        .args(["--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C"])
        .args(["--username=postgres", "--pgdata"])
        .arg(&fresh)
        .current_dir(&tmp)
        .output()
        .map_err(|e| KitError::provision("initdb", e))?;
    if !output.status.success() {
        let _ = std::fs::remove_dir_all(&fresh);
        return Err(KitError::provision(
            "initdb",
            String::from_utf8_lossy(&output.stderr).trim(),
        ));
    }
    // rename(2) is atomic and refuses to replace a non-empty directory, so when two test
    // processes initialise at once, one wins and the other throws its copy away.
    if std::fs::rename(&fresh, &cached).is_err() {
        let _ = std::fs::remove_dir_all(&fresh);
    }
    Ok(cached)
}

/// An `initdb` whose test process was killed goes on to the end, but no one renames its result
/// (`<cache>.<pid>`): remove those of processes that are gone.
fn remove_unfinished_copies(cached: &Path) {
    let (Some(dir), Some(name)) = (cached.parent(), cached.file_name()) else {
        return;
    };
    let prefix = format!("{}.", name.to_string_lossy());
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let pid = entry
            .file_name()
            .to_string_lossy()
            .strip_prefix(&prefix)
            .and_then(|pid| pid.parse::<i32>().ok());
        if let Some(pid) = pid
            && !process_exists(pid)
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Signal 0 checks that a process exists without touching it. EPERM means it exists but is
/// someone else's: still alive.
pub(crate) fn process_exists(pid: i32) -> bool {
    let pid = nix::unistd::Pid::from_raw(pid);
    !matches!(
        nix::sys::signal::kill(pid, None),
        Err(nix::errno::Errno::ESRCH)
    )
}

/// The temporary directory is shared: a data directory planted there by another user (with a `postgresql.conf` of
/// their choosing) would run their settings as us. initdb makes its directory private to its
/// owner; anything else is refused.
fn trusted(cached: PathBuf, owner: &ServerOwner) -> Result<PathBuf, KitError> {
    use std::os::unix::fs::MetadataExt;
    let metadata =
        std::fs::symlink_metadata(&cached).map_err(|e| KitError::provision("local binaries", e))?;
    if metadata.is_dir() && metadata.uid() == owner.uid && metadata.mode() & 0o077 == 0 {
        return Ok(cached);
    }
    Err(KitError::provision(
        "local binaries",
        format!(
            "refusing the cached data directory {}: it is not a private directory of uid {}. \
             Remove it and run the tests again",
            cached.display(),
            owner.uid
        ),
    ))
}

/// The user the server runs as. `initdb` and `postgres` refuse to run as root (a server bug
/// must not own the machine), so when the tests run as root, the server runs as `postgres`.
pub(crate) struct ServerOwner {
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    switch_user: bool,
}

impl ServerOwner {
    pub(crate) fn for_this_process() -> Result<ServerOwner, KitError> {
        let me = nix::unistd::geteuid();
        if !me.is_root() {
            return Ok(ServerOwner {
                uid: me.as_raw(),
                gid: nix::unistd::getegid().as_raw(),
                switch_user: false,
            });
        }
        match nix::unistd::User::from_name("postgres") {
            Ok(Some(user)) => Ok(ServerOwner {
                uid: user.uid.as_raw(),
                gid: user.gid.as_raw(),
                switch_user: true,
            }),
            _ => Err(KitError::provision(
                "local binaries",
                "the tests run as root, and PostgreSQL refuses to run as root. Create a `postgres` \
                 user (the Debian/Ubuntu package does: apt-get install postgresql), run the tests \
                 as an ordinary user, or set DATABASE_URL",
            )),
        }
    }

    /// Whether the server runs as another user than this process (which is root).
    pub(crate) fn is_another_user(&self) -> bool {
        self.switch_user
    }

    pub(crate) fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        if self.switch_user {
            command.uid(self.uid).gid(self.gid);
        }
        command
    }
}

pub(crate) fn major_version(bindir: &Path) -> Result<u32, KitError> {
    let output = Command::new(bindir.join("pg_ctl"))
        .arg("--version")
        .output()
        .map_err(|e| KitError::provision("pg_ctl --version", e))?;
    // "pg_ctl (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
    let text = String::from_utf8_lossy(&output.stdout);
    let major = text
        .split_whitespace()
        .nth(2)
        .and_then(|version| version.split('.').next())
        .and_then(|major| major.parse::<u32>().ok())
        .ok_or_else(|| {
            KitError::provision("pg_ctl --version", format!("unexpected output {text:?}"))
        })?;
    if major < MINIMUM_MAJOR_VERSION {
        return Err(KitError::provision(
            format!("the binaries in {}", bindir.display()),
            format!(
                "they are PostgreSQL {major}; the workbook needs {MINIMUM_MAJOR_VERSION} or newer. \
                 Set {}=docker to use a container, or DATABASE_URL to use another server",
                BACKEND_VAR
            ),
        ));
    }
    Ok(major)
}

pub(crate) fn find_bindir() -> Option<PathBuf> {
    let has_server = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    let from_pg_config = Command::new("pg_config")
        .arg("--bindir")
        .output()
        .ok()
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
    let from_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default();
    let mut well_known = Vec::new();
    for pattern in ["/usr/lib/postgresql", "/opt/homebrew/opt", "/usr/local/opt"] {
        if let Ok(entries) = std::fs::read_dir(pattern) {
            let mut dirs: Vec<PathBuf> = entries
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| pattern == "/usr/lib/postgresql" || is_homebrew_postgres(p))
                .map(|p| p.join("bin"))
                .collect();
            // Newest version first: "17" sorts after "15", "postgresql@17" after "postgresql@15".
            dirs.sort_by_key(|p| std::cmp::Reverse(version_of(p)));
            well_known.extend(dirs);
        }
    }
    from_pg_config
        .into_iter()
        .chain(from_path)
        .chain(well_known)
        .find(|dir| has_server(dir))
        // pg_ctl finds `postgres` beside its real path; resolve symlinks such as /usr/local/bin.
        .map(|dir| {
            std::fs::canonicalize(dir.join("pg_ctl"))
                .ok()
                .and_then(|real| real.parent().map(Path::to_path_buf))
                .unwrap_or(dir)
        })
}

fn is_homebrew_postgres(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with("postgresql"))
}

fn version_of(bindir: &Path) -> u32 {
    bindir
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|name| name.to_str())
        .map(|name| name.trim_start_matches("postgresql@"))
        .and_then(|version| version.parse().ok())
        .unwrap_or(0)
}
