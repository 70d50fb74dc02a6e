//! A throwaway PostgreSQL container, when a Docker engine is running.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use testcontainers_modules::postgres::Postgres;
use testcontainers_modules::testcontainers::ImageExt;
use testcontainers_modules::testcontainers::runners::SyncRunner;

use crate::error::KitError;
use crate::servers::backend::{Backend, Server};

/// The module's default image is PostgreSQL 11, older than the kit supports; pin a current one.
const IMAGE_TAG: &str = "16-alpine";

/// How long the ping may take. An engine answers in well under a millisecond; a socket that
/// accepts connections but never answers would otherwise stall testcontainers for two minutes.
const PING_TIMEOUT: Duration = Duration::from_millis(300);

/// The engine that answered `GET /_ping`, if any.
pub(crate) fn engine_endpoint() -> Option<String> {
    candidates()
        .into_iter()
        .find(|endpoint| answers_ping(endpoint))
}

pub(crate) fn start() -> Result<Server, KitError> {
    let endpoint = engine_endpoint().ok_or_else(|| {
        KitError::provision(
            "Docker",
            "no Docker engine answered a ping (set DOCKER_HOST if yours is not on a standard socket)",
        )
    })?;
    start_at(&endpoint)
}

/// Starts the container through the engine that answered at `endpoint`.
pub(crate) fn start_at(endpoint: &str) -> Result<Server, KitError> {
    // The port is published on the host's interfaces for the length of the run: no superuser
    // without a password there.
    let password = random_password();
    let container = Postgres::default()
        .with_password(&password)
        .with_tag(IMAGE_TAG)
        .with_cmd(["-c", "fsync=off", "-c", "max_connections=300"])
        .start()
        .map_err(|e| KitError::provision("Docker", e))?;
    let host = container
        .get_host()
        .map_err(|e| KitError::provision("Docker", e))?;
    let port = container
        .get_host_port_ipv4(5432)
        .map_err(|e| KitError::provision("Docker", e))?;
    let lifeline = remove_when_this_process_ends(container.id());
    // Dropping the handle would remove the container at once; the lifeline removes it at exit.
    std::mem::forget(container);
    let description = format!(
        "started a throwaway PostgreSQL container (postgres:{IMAGE_TAG}) through the Docker engine at {endpoint}"
    );
    Ok(Server::new(
        Backend::Docker,
        format!("postgres://postgres:{password}@{host}:{port}/postgres"),
        description,
        lifeline,
    ))
}

/// testcontainers has no reaper: a container is removed only when its handle is dropped, and a
/// handle in a static never is. A small process in its own group removes the container when our
/// end of its stdin closes, which happens however this process ends.
fn remove_when_this_process_ends(container_id: &str) -> Option<std::process::ChildStdin> {
    Command::new("sh")
        .arg("-c")
        .arg(r#"cat >/dev/null; docker rm -f -v "$1" >/dev/null 2>&1"#)
        .arg("sh")
        .arg(container_id)
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()
        .and_then(|mut child| child.stdin.take())
}

/// 64 random bits as hex: std's hasher is seeded randomly per process.
fn random_password() -> String {
    use std::hash::{BuildHasher, RandomState};
    format!("{:016x}", RandomState::new().hash_one(std::process::id()))
}

fn candidates() -> Vec<String> {
    if let Ok(host) = std::env::var("DOCKER_HOST") {
        return vec![host];
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    let mut sockets = vec![PathBuf::from("/var/run/docker.sock")];
    if let Some(home) = home {
        sockets.push(home.join(".docker/run/docker.sock"));
        sockets.push(home.join(".docker/desktop/docker.sock"));
    }
    if let Some(runtime) = runtime {
        sockets.push(runtime.join("docker.sock"));
    }
    sockets
        .into_iter()
        .filter(|socket| socket.exists())
        .map(|socket| format!("unix://{}", socket.display()))
        .collect()
}

fn answers_ping(endpoint: &str) -> bool {
    answers_ping_within(endpoint, PING_TIMEOUT)
}

/// The same, waiting at most `timeout` for each step (the tests' engine, a thread of theirs, may
/// be slow to be scheduled on a busy machine).
fn answers_ping_within(endpoint: &str, timeout: Duration) -> bool {
    let request = b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n";
    let mut reply = [0u8; 16];
    let read = if let Some(path) = endpoint.strip_prefix("unix://") {
        UnixStream::connect(path).and_then(|mut stream| {
            stream.set_read_timeout(Some(timeout))?;
            stream.set_write_timeout(Some(timeout))?;
            stream.write_all(request)?;
            stream.read(&mut reply)
        })
    } else if let Some(address) = endpoint.strip_prefix("tcp://") {
        address
            .to_socket_addrs()
            .and_then(|mut addresses| {
                addresses
                    .next()
                    .ok_or_else(|| std::io::Error::other("no address"))
            })
            .and_then(|address| TcpStream::connect_timeout(&address, timeout))
            .and_then(|mut stream| {
                stream.set_read_timeout(Some(timeout))?;
                stream.set_write_timeout(Some(timeout))?;
                stream.write_all(request)?;
                stream.read(&mut reply)
            })
    } else {
        return false;
    };
    // "HTTP/1.1 200 OK"
    read.is_ok_and(|n| {
        reply[..n].starts_with(b"HTTP/1.") && reply[..n].windows(4).any(|w| w == b" 200")
    })
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixListener;

    use std::time::Duration;

    use super::{answers_ping, answers_ping_within};

    fn socket_in(dir: &tempfile::TempDir) -> (String, std::path::PathBuf) {
        let path = dir.path().join("docker.sock");
        (format!("unix://{}", path.display()), path)
    }

    #[test]
    fn a_socket_that_accepts_but_never_answers_is_not_an_engine() {
        let dir = tempfile::tempdir().unwrap();
        let (endpoint, path) = socket_in(&dir);
        // The kernel accepts connections into the backlog; nobody ever reads or replies.
        let _listener = UnixListener::bind(&path).unwrap();
        assert!(!answers_ping(&endpoint));
    }

    #[test]
    fn a_socket_that_answers_the_ping_is_an_engine() {
        let dir = tempfile::tempdir().unwrap();
        let (endpoint, path) = socket_in(&dir);
        let listener = UnixListener::bind(&path).unwrap();
        let engine = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            // Read the request before answering, as an engine does: an engine that answered and
            // hung up first would make the probe's write of its request fail (EPIPE), which
            // once failed this test when the probe's thread was scheduled late.
            let mut request = Vec::new();
            let mut byte = [0u8; 1];
            while !request.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap() == 1 {
                request.push(byte[0]);
            }
            stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK")
                .unwrap();
        });
        // A reply decides it, however long the engine's thread takes to be scheduled: the
        // 300 ms of the real probe would make this test fail on a busy machine.
        assert!(answers_ping_within(&endpoint, Duration::from_secs(30)));
        engine.join().unwrap();
    }

    #[test]
    fn no_socket_is_no_engine() {
        assert!(!answers_ping("unix:///nonexistent/docker.sock"));
        assert!(!answers_ping("ssh://somewhere"));
    }
}
