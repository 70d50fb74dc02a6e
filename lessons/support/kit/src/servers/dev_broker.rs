//! The development broker (`cargo workbook kafka start|status|stop|url`): the Kafka track's
//! broker, kept running for a reader's console tools as the development database is for psql.
//! It listens on a fixed loopback port, so that the by-hand page's commands are the same on
//! every machine, and keeps its log in a folder under `target/`, so that `cargo clean` removes
//! it. A `KAFKA_BOOTSTRAP_SERVERS` of the reader's own is left alone: that cluster is theirs.

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::KitError;
use crate::servers::broker::{BOOTSTRAP_VAR, TANSU_VERSION, no_broker, tansu_binary};
use crate::servers::local_cluster::process_exists;

/// Where the development broker keeps its log, unless `target/workbook-kafka` of the workbook.
pub const DIR_VAR: &str = "WORKBOOK_KAFKA_DIR";

/// One above Kafka's own 9092, so that a reader's Kafka, if any, is not in the way.
pub const PORT: u16 = 19092;

/// As long as the throwaway broker's start may take.
const READY_WITHIN: Duration = Duration::from_secs(30);

pub struct DevBroker {
    dir: PathBuf,
}

/// What `start`, `status` and `stop` found.
pub enum Found {
    /// The development broker, at this bootstrap address.
    Ours(String),
    /// `KAFKA_BOOTSTRAP_SERVERS`: the reader's own cluster.
    Theirs(String),
    NotRunning,
}

impl DevBroker {
    pub fn from_env() -> DevBroker {
        let dir = std::env::var_os(DIR_VAR)
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../target/workbook-kafka")
            });
        DevBroker {
            dir: std::path::absolute(&dir).unwrap_or(dir),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn pid_file(&self) -> PathBuf {
        self.dir.join("broker.pid")
    }

    /// The broker's process, if its pid file names one that is still a Tansu.
    fn pid(&self) -> Option<i32> {
        let pid: i32 = std::fs::read_to_string(self.pid_file())
            .ok()?
            .trim()
            .parse()
            .ok()?;
        // A pid is reused once its process is gone: check that it is still a broker's.
        let command = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let is_tansu = String::from_utf8_lossy(&command).contains("tansu");
        (process_exists(pid) && is_tansu).then_some(pid)
    }

    pub fn status(&self) -> Found {
        if let Some(theirs) = theirs() {
            return Found::Theirs(theirs);
        }
        match self.pid() {
            Some(_) => Found::Ours(bootstrap()),
            None => Found::NotRunning,
        }
    }

    /// Starts the broker, unless it runs already; `fresh` empties its log first (every topic,
    /// record and committed offset is gone).
    pub fn start(&self, fresh: bool) -> Result<Found, KitError> {
        if let Some(theirs) = theirs() {
            return Ok(Found::Theirs(theirs));
        }
        let binary = tansu_binary().ok_or_else(no_broker)?;
        let what = &format!("the broker {}", binary.display());
        if fresh {
            self.stop()?;
            if self.dir.exists() {
                std::fs::remove_dir_all(&self.dir).map_err(|e| KitError::broker(what, e))?;
            }
        } else if self.pid().is_some() {
            return Ok(Found::Ours(bootstrap()));
        }
        // Tansu listens with SO_REUSEPORT, and would share the port with a program that holds
        // it already: a client would reach one or the other. So the port must be free first.
        if let Err(e) = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, PORT)) {
            return Err(KitError::broker(
                what,
                format!(
                    "port {PORT} on 127.0.0.1 is taken ({e}): another program listens there. \
                     Stop it, or set KAFKA_BOOTSTRAP_SERVERS to a Kafka cluster of yours"
                ),
            ));
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| KitError::broker(what, e))?;
        // Tansu reads a `.env` from its working directory: it gets an empty one of its own.
        std::fs::write(self.dir.join(".env"), "").map_err(|e| KitError::broker(what, e))?;
        let log = std::fs::File::create(self.dir.join("broker.log"))
            .map_err(|e| KitError::broker(what, e))?;
        let listener = format!("tcp://{}", bootstrap());
        let mut child = Command::new(&binary)
            .args(["broker", "--storage-engine", "sqlite://log.db"])
            .args([
                "--listener-url",
                &listener,
                "--advertised-listener-url",
                &listener,
            ])
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| KitError::broker(what, e))?)
            .stderr(log)
            // A group of its own: a Ctrl-C in the terminal that started it does not reach it.
            .process_group(0)
            .spawn()
            .map_err(|e| KitError::broker(what, format!("could not run it: {e}")))?;
        let pid = child.id() as i32;
        std::fs::write(self.pid_file(), pid.to_string()).map_err(|e| KitError::broker(what, e))?;
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, PORT));
        let started = Instant::now();
        while TcpStream::connect_timeout(&address, Duration::from_millis(100)).is_err() {
            let exited = child.try_wait().is_ok_and(|status| status.is_some());
            if exited || started.elapsed() > READY_WITHIN {
                let _ = self.stop();
                let log = std::fs::read_to_string(self.dir.join("broker.log")).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(20).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                return Err(KitError::broker(
                    what,
                    format!(
                        "it did not listen on {address} within {READY_WITHIN:?}; its log \
                         says:\n{}",
                        tail.join("\n")
                    ),
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(Found::Ours(bootstrap()))
    }

    /// Stops the broker and waits for it to be gone; its log is kept.
    pub fn stop(&self) -> Result<Found, KitError> {
        if let Some(theirs) = theirs() {
            return Ok(Found::Theirs(theirs));
        }
        let Some(pid) = self.pid() else {
            return Ok(Found::NotRunning);
        };
        let process = nix::unistd::Pid::from_raw(pid);
        let _ = nix::sys::signal::kill(process, nix::sys::signal::Signal::SIGTERM);
        let started = Instant::now();
        // Gone once its pid names no broker: an exited process whose parent has not reaped it
        // yet (a zombie) has no command line left.
        while self.pid().is_some() {
            if started.elapsed() > Duration::from_secs(10) {
                let _ = nix::sys::signal::kill(process, nix::sys::signal::Signal::SIGKILL);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = std::fs::remove_file(self.pid_file());
        Ok(Found::Ours(bootstrap()))
    }
}

fn bootstrap() -> String {
    format!("127.0.0.1:{PORT}")
}

fn theirs() -> Option<String> {
    std::env::var(BOOTSTRAP_VAR).ok().filter(|b| !b.is_empty())
}

/// For the messages: which broker this is.
pub fn description() -> String {
    format!("the workbook's Kafka-protocol broker (Tansu {TANSU_VERSION})")
}
