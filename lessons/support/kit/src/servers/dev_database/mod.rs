//! A development database that outlives any one command, to poke at a lesson by hand:
//! `cargo workbook db start|status|stop|url`, and the database `cargo workbook deliver` writes to.
//!
//! It is found the way the tests find theirs, in the same order, and `WORKBOOK_POSTGRES`
//! forces one way here too: `DATABASE_URL` (a server you run, so nothing is started), else a
//! Docker engine (a container and a volume named after the folder), else the PostgreSQL
//! binaries installed here (a cluster whose data lives in the folder, listening only on a
//! private unix socket). A folder that already holds a cluster keeps using it, so an engine
//! started later never shadows its data with an empty container. Unlike the tests' servers it
//! is never removed: `stop` keeps the data, and the next `start` finds everything where it was.

mod container;
mod local;

use std::path::{Path, PathBuf};

use crate::error::KitError;
use crate::servers::backend::{BACKEND_VAR, redact_password};

/// Where the local cluster keeps its data; the runner sets it to `<workbook>/target/workbook-db`.
pub const DIR_VAR: &str = "WORKBOOK_DB_DIR";

/// A running development server.
#[derive(Debug, Clone)]
pub struct DevServer {
    /// For `psql` and for `DATABASE_URL`: an administrative connection to the `postgres` database.
    pub url: String,
    /// Which server, in a line.
    pub description: String,
}

impl DevServer {
    /// The same server, connected to `database`: only the URL's path changes, whatever else it
    /// holds (a port, `?sslmode=…`, `?host=/socket/dir`) stays as it is.
    pub fn url_of(&self, database: &str) -> String {
        crate::servers::backend::url_of(&self.url, database)
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
    /// A container is named after it.
    dir: PathBuf,
    /// `url`, `docker` or `local`: the one backend to use, as `WORKBOOK_POSTGRES` says.
    forced: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Backend {
    DatabaseUrl,
    Docker,
    Local,
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
            forced: std::env::var(BACKEND_VAR).ok().filter(|v| !v.is_empty()),
        }
    }

    /// A local cluster in `dir`, whatever `DATABASE_URL` or a Docker engine offer.
    pub fn local(dir: &Path) -> DevDatabase {
        DevDatabase {
            dir: absolute(dir),
            forced: Some("local".into()),
        }
    }

    fn database_url() -> Option<String> {
        std::env::var("DATABASE_URL")
            .ok()
            .filter(|url| !url.is_empty())
    }

    /// Which backend serves this folder.
    fn backend(&self) -> Result<Backend, KitError> {
        match self.forced.as_deref() {
            Some("url") => Ok(Backend::DatabaseUrl),
            Some("docker") => Ok(Backend::Docker),
            Some("local") => Ok(Backend::Local),
            Some(other) => Err(KitError::provision(
                BACKEND_VAR,
                format!("{other:?} is not a backend: use url, docker or local, or unset it"),
            )),
            None if Self::database_url().is_some() => Ok(Backend::DatabaseUrl),
            None if self.has_local_data() => Ok(Backend::Local),
            None if container::available() => Ok(Backend::Docker),
            None => Ok(Backend::Local),
        }
    }

    /// Starts the development server (or finds the one already running) and returns it.
    pub fn start(&self) -> Result<DevServer, KitError> {
        match self.backend()? {
            Backend::DatabaseUrl => self.server_at_database_url(),
            Backend::Docker => container::start(&self.dir),
            Backend::Local => local::start(&self.dir),
        }
    }

    /// Whether the development server is running, without starting anything.
    pub fn status(&self) -> Result<DevStatus, KitError> {
        let running = match self.backend()? {
            Backend::DatabaseUrl => Some(self.server_at_database_url()?),
            Backend::Docker => container::running(&self.dir)?,
            Backend::Local => local::running(&self.dir)?,
        };
        Ok(match running {
            Some(server) => DevStatus::Running(server),
            None => {
                let data = local::home(&self.dir)?.join("data");
                DevStatus::Stopped {
                    data: data.join("PG_VERSION").exists().then_some(data),
                }
            }
        })
    }

    /// Stops the development server and keeps its data. `Ok(None)`: nothing was running, or
    /// it is a `DATABASE_URL` server, which is yours to stop.
    pub fn stop(&self) -> Result<Option<DevServer>, KitError> {
        match self.backend()? {
            Backend::DatabaseUrl => Ok(None),
            Backend::Docker => container::stop(&self.dir),
            Backend::Local => local::stop(&self.dir),
        }
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

    /// Whether this folder's local cluster exists (wherever it had to live).
    fn has_local_data(&self) -> bool {
        local::home(&self.dir).is_ok_and(|home| home.join("data/PG_VERSION").exists())
    }

    fn server_at_database_url(&self) -> Result<DevServer, KitError> {
        let url = Self::database_url().ok_or_else(|| {
            KitError::provision(
                "DATABASE_URL",
                format!("{BACKEND_VAR}=url, but DATABASE_URL is not set"),
            )
        })?;
        Ok(DevServer {
            description: format!(
                "the server at DATABASE_URL ({}), which you run: the workbook neither starts \
                 nor stops it, nor checks that it is up",
                redact_password(&url)
            ),
            url,
        })
    }
}

/// FNV-1a: the same on every build (std's hasher is not promised to be), for names that must
/// not change from one version of the workbook to the next.
fn stable_hash(path: &Path) -> u64 {
    path.as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn server(url: &str) -> DevServer {
        DevServer {
            url: url.into(),
            description: String::new(),
        }
    }

    #[test]
    fn a_url_names_another_database_and_keeps_the_rest() {
        for (url, expected) in [
            (
                "postgresql://postgres@%2Fw%2Fdb:5432/postgres",
                "postgresql://postgres@%2Fw%2Fdb:5432/workbook_05",
            ),
            ("postgres://u@h:5432", "postgres://u@h:5432/workbook_05"),
            (
                "postgres://u:p@h/db?sslmode=require",
                "postgres://u:p@h/workbook_05?sslmode=require",
            ),
            (
                "postgresql:///postgres?host=/var/run/postgresql",
                "postgresql:///workbook_05?host=/var/run/postgresql",
            ),
        ] {
            assert_eq!(server(url).url_of("workbook_05"), expected, "{url}");
        }
    }

    #[test]
    fn names_from_a_folder_do_not_change_between_builds() {
        // FNV-1a of "/w", computed independently.
        assert_eq!(stable_hash(Path::new("/w")), 0x07d6_5107_b49c_b3cb);
    }

    #[test]
    fn parent_folders_are_resolved_without_the_disk() {
        assert_eq!(normalise(Path::new("/a/b/../../c/./d")), Path::new("/c/d"));
    }
}
