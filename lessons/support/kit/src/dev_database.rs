//! A development database that outlives any one command, to poke at a lesson by hand:
//! `cargo workbook db start|status|stop|url`, and the database `cargo workbook deliver` writes to.
//!
//! It is found the way the tests find theirs, in the same order: `DATABASE_URL` (a server you
//! run, so nothing is started), else a Docker engine (a named container with a named volume),
//! else the PostgreSQL binaries installed here (a cluster whose data lives under `target/`,
//! listening only on a private unix socket). Unlike the tests' servers it is never removed:
//! `stop` stops it and keeps its data, and the next `start` finds everything where it was.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::KitError;
use crate::local_cluster::{ServerOwner, find_bindir, major_version};
use crate::server::redact_password;

/// Where the local cluster keeps its data; the runner sets it to `<workbook>/target/workbook-db`.
pub const DIR_VAR: &str = "WORKBOOK_DB_DIR";

/// The Docker container and volume, when a Docker engine serves the development database.
const CONTAINER: &str = "idempotency-workbook-db";
const DOCKER_IMAGE: &str = "postgres:16-alpine";
/// Only reachable from this machine (the port is published on 127.0.0.1 alone).
const DOCKER_PASSWORD: &str = "workbook";

/// A running development server.
#[derive(Debug, Clone)]
pub struct DevServer {
    /// For `psql` and for `DATABASE_URL`: an administrative connection to the `postgres` database.
    pub url: String,
    /// Which server, in a line.
    pub description: String,
}

impl DevServer {
    /// The same server, connected to `database`.
    pub fn url_of(&self, database: &str) -> String {
        match self.url.rsplit_once('/') {
            Some((server, _)) => format!("{server}/{database}"),
            None => self.url.clone(),
        }
    }
}

/// What `status` found.
#[derive(Debug)]
pub enum DevStatus {
    Running(DevServer),
    /// Not running; `data` is where its data is kept, if there is any yet.
    Stopped {
        data: Option<PathBuf>,
    },
}

/// The development database of one folder.
#[derive(Debug, Clone)]
pub struct DevDatabase {
    /// The local cluster's folder: its data, its log and (when the path is short) its socket.
    dir: PathBuf,
    /// Only the local cluster, whatever DATABASE_URL or a Docker engine offer (for tests).
    local_only: bool,
}

impl DevDatabase {
    /// The workbook's: in `WORKBOOK_DB_DIR`, else `target/workbook-db` of the workbook this
    /// crate was built in.
    pub fn from_env() -> DevDatabase {
        let dir = std::env::var_os(DIR_VAR)
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../target/workbook-db")
            });
        DevDatabase {
            dir: absolute(&dir),
            local_only: false,
        }
    }

    /// A local cluster in `dir`, and nothing else.
    pub fn local(dir: &Path) -> DevDatabase {
        DevDatabase {
            dir: absolute(dir),
            local_only: true,
        }
    }

    fn database_url(&self) -> Option<String> {
        if self.local_only {
            return None;
        }
        std::env::var("DATABASE_URL")
            .ok()
            .filter(|url| !url.is_empty())
    }

    fn docker(&self) -> bool {
        !self.local_only && docker_available()
    }

    /// Starts the development server (or finds the one already running) and returns it.
    pub fn start(&self) -> Result<DevServer, KitError> {
        if let DevStatus::Running(server) = self.status()? {
            return Ok(server);
        }
        if self.docker() {
            return docker_start();
        }
        self.local_start()
    }

    /// Whether the development server is running, without starting anything.
    pub fn status(&self) -> Result<DevStatus, KitError> {
        if let Some(url) = self.database_url() {
            return Ok(DevStatus::Running(from_database_url(url)));
        }
        if let Some(server) = self.local_running()? {
            return Ok(DevStatus::Running(server));
        }
        if self.docker()
            && let Some(server) = docker_running()?
        {
            return Ok(DevStatus::Running(server));
        }
        let data = self.dir.join("data");
        Ok(DevStatus::Stopped {
            data: data.join("PG_VERSION").exists().then_some(data),
        })
    }

    /// Stops the development server and keeps its data. `Ok(None)`: nothing was running.
    pub fn stop(&self) -> Result<Option<DevServer>, KitError> {
        if self.database_url().is_some() {
            return Ok(None);
        }
        if let Some(server) = self.local_running()? {
            let owner = ServerOwner::for_this_process()?;
            let output = owner
                .command(local_bindir()?.join("pg_ctl"))
                .args(["stop", "-w", "-m", "fast", "-D"])
                .arg(self.dir.join("data"))
                .output()
                .map_err(|e| KitError::provision("pg_ctl stop", e))?;
            if !output.status.success() {
                return Err(KitError::provision(
                    "pg_ctl stop",
                    String::from_utf8_lossy(&output.stderr).trim(),
                ));
            }
            return Ok(Some(server));
        }
        if self.docker()
            && let Some(server) = docker_running()?
        {
            docker(&["stop", CONTAINER])?;
            return Ok(Some(server));
        }
        Ok(None)
    }

    /// The running server, or a message that says how to start one.
    pub fn running(&self) -> Result<DevServer, KitError> {
        match self.status()? {
            DevStatus::Running(server) => Ok(server),
            DevStatus::Stopped { .. } => Err(KitError::Unavailable(
                "the development database is not running. Start it with `cargo workbook db \
                 start` (or set DATABASE_URL to a server you run), then run this again"
                    .into(),
            )),
        }
    }
}

fn from_database_url(url: String) -> DevServer {
    DevServer {
        description: format!(
            "the server at DATABASE_URL ({}): you run it, so start and stop leave it alone",
            redact_password(&url)
        ),
        url,
    }
}

// ---- the local cluster -------------------------------------------------------------------

fn local_bindir() -> Result<PathBuf, KitError> {
    find_bindir().ok_or_else(|| {
        KitError::provision(
            "local binaries",
            "no initdb/pg_ctl found (Debian/Ubuntu: apt-get install postgresql; macOS: brew \
             install postgresql@16), and neither DATABASE_URL nor a Docker engine is there to \
             use instead",
        )
    })
}

/// A unix socket's path is limited to about 100 bytes: the socket lives in the cluster's own
/// folder when that is short enough, else in a private folder of the temporary directory
/// named after it (the same folder every time, so the URL does not change between starts).
fn socket_dir(dir: &Path) -> PathBuf {
    if dir.as_os_str().len() <= 80 {
        return dir.to_path_buf();
    }
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    dir.hash(&mut hasher);
    std::env::temp_dir().join(format!("wbdb-{:012x}", hasher.finish() & 0xffff_ffff_ffff))
}

fn local_url(socket: &Path) -> String {
    let socket = socket.display().to_string().replace('/', "%2F");
    format!("postgresql://postgres@{socket}:5432/postgres")
}

impl DevDatabase {
    /// `pg_ctl status` says "server is running" with exit code 0, "no server running" with 3.
    fn local_running(&self) -> Result<Option<DevServer>, KitError> {
        let dir = &self.dir;
        let data = dir.join("data");
        if !data.join("PG_VERSION").exists() {
            return Ok(None);
        }
        let Some(bindir) = find_bindir() else {
            return Ok(None);
        };
        let owner = ServerOwner::for_this_process()?;
        let running = owner
            .command(bindir.join("pg_ctl"))
            .args(["status", "-D"])
            .arg(&data)
            .output()
            .map_err(|e| KitError::provision("pg_ctl status", e))?
            .status
            .success();
        Ok(running.then(|| DevServer {
            url: local_url(&socket_dir(dir)),
            description: format!(
                "a PostgreSQL cluster of this workbook, data in {}, socket in {}",
                data.display(),
                socket_dir(dir).display()
            ),
        }))
    }

    fn local_start(&self) -> Result<DevServer, KitError> {
        let bindir = local_bindir()?;
        let major = major_version(&bindir)?;
        let owner = ServerOwner::for_this_process()?;
        let dir = &self.dir;
        let (data, socket) = (dir.join("data"), socket_dir(dir));
        for folder in [dir, &socket] {
            std::fs::create_dir_all(folder)
                .map_err(|e| KitError::provision(format!("creating {}", folder.display()), e))?;
            // The server runs as `postgres` when we are root: it must own its folders.
            nix::unistd::chown(
                folder.as_path(),
                Some(nix::unistd::Uid::from_raw(owner.uid)),
                Some(nix::unistd::Gid::from_raw(owner.gid)),
            )
            .map_err(|e| {
                KitError::provision(format!("handing {} to the server", folder.display()), e)
            })?;
        }
        // As root, the server runs as `postgres`, which must be able to reach its folder: a
        // private folder above it (a home, a mktemp directory) stops it with an obscure error.
        let reachable = owner
            .command("sh")
            .args(["-c", r#"test -w "$1" && test -x "$1""#, "sh"])
            .arg(dir)
            .status()
            .is_ok_and(|status| status.success());
        if !reachable {
            return Err(KitError::provision(
                "local binaries",
                format!(
                    "the server runs as uid {} (PostgreSQL refuses to run as root), and that user \
                 cannot reach {}: a folder above it is private. Set {DIR_VAR} to a folder it can \
                 reach (say /var/tmp/workbook-db), or run the workbook as an ordinary user",
                    owner.uid,
                    dir.display()
                ),
            ));
        }
        if !data.join("PG_VERSION").exists() {
            // An initdb that was interrupted leaves a folder initdb refuses to reuse.
            let _ = std::fs::remove_dir_all(&data);
            let output = owner
                .command(bindir.join("initdb"))
                .args([
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--locale=C",
                    "--username=postgres",
                ])
                .arg("--pgdata")
                .arg(&data)
                .current_dir(dir)
                .output()
                .map_err(|e| KitError::provision("initdb", e))?;
            if !output.status.success() {
                let _ = std::fs::remove_dir_all(&data);
                return Err(KitError::provision(
                    "initdb",
                    String::from_utf8_lossy(&output.stderr).trim(),
                ));
            }
        }
        let log = dir.join("server.log");
        let options = format!(
            "-k '{}' -c listen_addresses='' -c unix_socket_permissions=0700",
            socket.display()
        );
        let output = owner
            .command(bindir.join("pg_ctl"))
            .args(["start", "-w", "-t", "60", "-D"])
            .arg(&data)
            .arg("-l")
            .arg(&log)
            .args(["-o", &options])
            .current_dir(dir)
            .output()
            .map_err(|e| KitError::provision("pg_ctl start", e))?;
        if !output.status.success() {
            let tail = std::fs::read_to_string(&log)
                .map(|text| {
                    let lines: Vec<&str> = text.lines().collect();
                    lines[lines.len().saturating_sub(10)..].join("\n")
                })
                .unwrap_or_default();
            return Err(KitError::provision(
                format!("PostgreSQL {major} from {}", bindir.display()),
                format!(
                    "the server did not start. {}\nIts log ({}) ends with:\n{tail}",
                    String::from_utf8_lossy(&output.stderr).trim(),
                    log.display()
                ),
            ));
        }
        self.local_running()?.ok_or_else(|| {
            KitError::provision(
                "pg_ctl start",
                "it said the server started, but it is not running",
            )
        })
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path)
        .map(|p| normalise(&p))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// `a/b/../c` → `a/c`, without touching the disk (the folder may not exist yet).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

// ---- a Docker container ------------------------------------------------------------------

/// An engine that answers, and the `docker` command to talk to it (the kit's throwaway
/// containers go through testcontainers, which removes them; this one must stay).
fn docker_available() -> bool {
    crate::docker::engine_endpoint().is_some()
        && Command::new("docker")
            .arg("version")
            .output()
            .is_ok_and(|out| out.status.success())
}

fn docker(args: &[&str]) -> Result<String, KitError> {
    let output = Command::new("docker")
        .args(args)
        .output()
        .map_err(|e| KitError::provision("docker", e))?;
    if !output.status.success() {
        return Err(KitError::provision(
            format!("docker {}", args.join(" ")),
            String::from_utf8_lossy(&output.stderr).trim(),
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

fn docker_running() -> Result<Option<DevServer>, KitError> {
    let running = Command::new("docker")
        .args(["inspect", "--format", "{{.State.Running}}", CONTAINER])
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "true");
    if !running {
        return Ok(None);
    }
    // "127.0.0.1:55012"
    let published = docker(&["port", CONTAINER, "5432/tcp"])?;
    let address = published.lines().next().unwrap_or_default();
    Ok(Some(DevServer {
        url: format!("postgres://postgres:{DOCKER_PASSWORD}@{address}/postgres"),
        description: format!(
            "the Docker container {CONTAINER} (data in the volume {CONTAINER}), on {address}"
        ),
    }))
}

fn docker_start() -> Result<DevServer, KitError> {
    let exists = Command::new("docker")
        .args(["inspect", CONTAINER])
        .output()
        .is_ok_and(|out| out.status.success());
    if exists {
        docker(&["start", CONTAINER])?;
    } else {
        let volume = format!("{CONTAINER}:/var/lib/postgresql/data");
        let password = format!("POSTGRES_PASSWORD={DOCKER_PASSWORD}");
        docker(&[
            "run",
            "--detach",
            "--name",
            CONTAINER,
            "--volume",
            &volume,
            "--env",
            &password,
            "--publish",
            "127.0.0.1::5432",
            DOCKER_IMAGE,
        ])?;
    }
    // The image's entrypoint initialises the volume, then restarts the server once.
    for _ in 0..120 {
        let ready = Command::new("docker")
            .args([
                "exec",
                CONTAINER,
                "pg_isready",
                "-U",
                "postgres",
                "-h",
                "127.0.0.1",
            ])
            .output()
            .is_ok_and(|out| out.status.success());
        if ready {
            return docker_running()?.ok_or_else(|| {
                KitError::provision("Docker", format!("the container {CONTAINER} stopped"))
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    Err(KitError::provision(
        "Docker",
        format!(
            "the container {CONTAINER} was not ready within a minute: see `docker logs {CONTAINER}`"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_folder_gets_a_short_socket_folder_and_always_the_same_one() {
        let long = PathBuf::from(format!("/home/{}/target/workbook-db", "x".repeat(90)));
        let socket = socket_dir(&long);
        assert!(socket.as_os_str().len() < 100, "{}", socket.display());
        assert_eq!(socket, socket_dir(&long));
        assert_eq!(
            socket_dir(Path::new("/w/target/workbook-db")),
            Path::new("/w/target/workbook-db")
        );
    }

    #[test]
    fn a_url_names_another_database_of_the_same_server() {
        let server = DevServer {
            url: "postgresql://postgres@%2Fw%2Fdb:5432/postgres".into(),
            description: String::new(),
        };
        assert_eq!(
            server.url_of("workbook_05"),
            "postgresql://postgres@%2Fw%2Fdb:5432/workbook_05"
        );
    }

    #[test]
    fn parent_folders_are_resolved_without_the_disk() {
        assert_eq!(normalise(Path::new("/a/b/../../c/./d")), Path::new("/c/d"));
    }
}
