//! The Kafka-protocol broker of the Kafka track, decided once per test process, as [`server`]
//! decides the PostgreSQL server: `KAFKA_BOOTSTRAP_SERVERS` when it is set (a Kafka cluster, a
//! Redpanda, a managed service), else a throwaway broker the kit starts on loopback.
//!
//! The throwaway broker is Tansu, pinned: a broker that speaks the Kafka protocol and keeps its
//! log in a storage engine, here SQLite in a file of the broker's private directory. (Its
//! PostgreSQL engine needs a TCP address and a schema the crate does not ship, and the kit's
//! throwaway cluster listens on a unix socket only.) Like the cluster, it never outlives the
//! test process: a watchdog makes its directory and its process, and removes both when the test
//! process's end of a pipe closes, however that process ended.
//!
//! [`server`]: crate::server()

use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::error::KitError;
use crate::servers::local_cluster::{process_exists, watchdog};

/// A Kafka cluster of the reader's own: its bootstrap servers, as every Kafka client names them.
pub const BOOTSTRAP_VAR: &str = "KAFKA_BOOTSTRAP_SERVERS";

/// The broker binary to start, when it is not where `.ci/run` and the install hint put it.
pub const BROKER_BIN_VAR: &str = "WORKBOOK_TANSU";

/// The pinned broker: the newest on crates.io, with the storage engine the kit uses.
pub const TANSU_VERSION: &str = "0.6.0";

/// How long a broker may take to listen (it takes about 60 ms on a warm machine).
const READY_WITHIN: Duration = Duration::from_secs(30);

/// The broker the Kafka track's tests produce to and consume from.
#[derive(Debug)]
pub struct Broker {
    /// `host:port[,host:port…]`, for a client's `bootstrap.servers`.
    pub bootstrap: String,
    /// One line for humans: which broker, and how it was found.
    pub description: String,
    /// Whether the kit started it (a broker of the kit's own holds nothing of anyone else's).
    pub throwaway: bool,
    /// Keeps the throwaway broker alive: see [`crate::Server`].
    _lifeline: Option<std::process::ChildStdin>,
}

static BROKER: OnceLock<Result<Broker, String>> = OnceLock::new();

/// The broker for this test process: found (or started) on first use, then shared.
pub fn broker() -> Result<&'static Broker, KitError> {
    let chosen = BROKER.get_or_init(|| {
        let chosen = choose();
        if let Ok(broker) = &chosen {
            let _ = writeln!(std::io::stderr(), "workbook: {}", broker.description);
        }
        chosen
    });
    chosen
        .as_ref()
        .map_err(|message| KitError::Unavailable(message.clone()))
}

fn choose() -> Result<Broker, String> {
    if let Some(bootstrap) = std::env::var(BOOTSTRAP_VAR).ok().filter(|b| !b.is_empty()) {
        return Ok(Broker {
            description: format!(
                "using the Kafka cluster at {BOOTSTRAP_VAR} ({bootstrap}); each test makes topics \
                 and groups of its own"
            ),
            bootstrap,
            throwaway: false,
            _lifeline: None,
        });
    }
    let binary = tansu_binary().ok_or_else(|| no_broker().to_string())?;
    // A port taken between our look and the broker's bind fails the start: try another.
    let mut last = String::new();
    for _ in 0..3 {
        match start(&binary) {
            Ok(broker) => return Ok(broker),
            Err(e) => last = e.to_string(),
        }
    }
    Err(last)
}

/// Where `cargo workbook kafka install` and `.ci/run` put the pinned broker.
pub fn tansu_install_root() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache
        .join("idempotency-workbook")
        .join(format!("tansu-{TANSU_VERSION}-libsql"))
}

/// The command that installs the pinned broker where the kit looks for it.
pub fn tansu_install_command() -> String {
    format!(
        "cargo install tansu --version {TANSU_VERSION} --locked --features libsql --root {}",
        tansu_install_root().display()
    )
}

/// The error that says no broker is available, and the two ways to get one.
pub(crate) fn no_broker() -> KitError {
    KitError::NoBroker {
        bootstrap_var: BOOTSTRAP_VAR,
        version: TANSU_VERSION,
        install: tansu_install_command(),
    }
}

pub(crate) fn tansu_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(BROKER_BIN_VAR) {
        return Some(PathBuf::from(path));
    }
    let installed = tansu_install_root().join("bin").join("tansu");
    installed.is_file().then_some(installed)
}

/// The watchdog of a throwaway broker: makes the run directory, starts the broker in it (Tansu
/// reads a `.env` from its working directory, so it gets an empty one of its own), prints
/// `started <dir> <pid>`, waits for its stdin to close, then kills the broker and removes the
/// directory. The same shape as the PostgreSQL cluster's (see local_cluster.rs), for the same
/// reasons: no instant at which the test process can die and leave something no one removes.
const WATCHDOG: &str = r#"
trap '' PIPE HUP INT
tansu=$1 scratch=$2 prefix=$3 port=$4
if ! run=$(mktemp -d "$scratch/$prefix-XXXXXX"); then
    echo "could not create a directory in $scratch"; exit 1
fi
cd "$run" || exit 1
"$tansu" broker --storage-engine sqlite://log.db \
    --listener-url "tcp://127.0.0.1:$port" --advertised-listener-url "tcp://127.0.0.1:$port" \
    >broker.log 2>&1 &
broker=$!
echo "started $run $broker"
cat >/dev/null
kill -9 "$broker" 2>/dev/null
wait "$broker" 2>/dev/null
rm -rf "$run"
"#;

/// `wbkafka-<pid of the test process>`: a broker's directory and process trace back to it.
pub fn broker_dir_prefix(test_process: u32) -> String {
    format!("wbkafka-{test_process}")
}

fn start(binary: &Path) -> Result<Broker, KitError> {
    let what = format!("the broker {}", binary.display());
    let port = free_port().map_err(|e| KitError::broker(&what, e))?;
    let scratch = std::env::temp_dir();
    let args = [
        binary.as_os_str().to_owned(),
        scratch.as_os_str().to_owned(),
        broker_dir_prefix(std::process::id()).into(),
        port.to_string().into(),
    ];
    let mut sh = Command::new("sh");
    let mut watchdog = watchdog(&mut sh, WATCHDOG, args, &scratch)
        .spawn()
        .map_err(|e| KitError::broker(&what, format!("could not run sh: {e}")))?;
    let mut line = String::new();
    let stdout = watchdog.stdout.take().expect("stdout is piped");
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| KitError::broker(&what, e))?;
    let Some((run, pid)) = line
        .trim_end()
        .strip_prefix("started ")
        .and_then(|rest| rest.rsplit_once(' '))
    else {
        return Err(KitError::broker(&what, line.trim()));
    };
    let (run, pid) = (PathBuf::from(run), pid.parse::<i32>().unwrap_or(0));
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let started = Instant::now();
    // Ready when it accepts a connection; a broker that exits (a bad flag, a taken port) says
    // why in its log, which is still there: the watchdog removes it only when we let go.
    while TcpStream::connect_timeout(&address, Duration::from_millis(100)).is_err() {
        if !process_exists(pid) || started.elapsed() > READY_WITHIN {
            let log = std::fs::read_to_string(run.join("broker.log")).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(20).collect();
            let verdict = if process_exists(pid) {
                format!("it did not listen on {address} within {READY_WITHIN:?}")
            } else {
                "it exited".to_string()
            };
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(KitError::broker(
                &what,
                format!("{verdict}; its log says:\n{}", tail.join("\n")),
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(Broker {
        bootstrap: address.to_string(),
        description: format!(
            "started a throwaway Kafka-protocol broker (Tansu {TANSU_VERSION}) on {address}, its \
             log in {}, removed when the tests end",
            run.display()
        ),
        throwaway: true,
        _lifeline: watchdog.stdin.take(),
    })
}

/// A loopback port nothing listens on now.
fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

#[cfg(test)]
mod tests {
    use super::TANSU_VERSION;

    /// CI installs the broker the kit looks for: the same version, in the same place.
    #[test]
    fn ci_installs_the_pinned_broker() {
        let run = include_str!("../../../../../.ci/run");
        assert!(
            run.contains(&format!("TANSU_VERSION={TANSU_VERSION}\n")),
            ".ci/run must install Tansu {TANSU_VERSION}, the version the kit looks for"
        );
        assert!(run.contains("idempotency-workbook/tansu-$TANSU_VERSION-libsql"));
    }
}
