//! Which PostgreSQL server the tests use, decided once per test process.
//!
//! Only plain data (a URL) is kept in the process-wide static. Every `#[tokio::test]` runs on a
//! runtime of its own, and a pool or connection opened on one runtime breaks on another, so each
//! test opens its own connections from this URL.

use std::io::Write;
use std::sync::OnceLock;

use crate::{KitError, docker, local_cluster};

/// The environment variable that forces one backend instead of the first that works.
pub const BACKEND_VAR: &str = "WORKBOOK_POSTGRES";

/// Where the server came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// `DATABASE_URL`: a server someone else runs, so the kit cleans up after itself there.
    DatabaseUrl,
    /// A throwaway container started through a Docker engine.
    Docker,
    /// A throwaway cluster started from the PostgreSQL binaries installed on this machine.
    LocalBinaries,
}

/// A server the tests may create databases on.
#[derive(Debug)]
pub struct Server {
    pub backend: Backend,
    /// A URL for an administrative connection (any existing database on the server).
    pub url: String,
    /// One line for humans: which server, and how it was found.
    pub description: String,
    /// Keeps the throwaway server alive: when this process ends, for any reason, the other end
    /// of this pipe sees end-of-file and removes the server. Statics are never dropped, so a
    /// `Drop` impl could not do this job.
    _lifeline: Option<std::process::ChildStdin>,
}

impl Server {
    pub(crate) fn new(
        backend: Backend,
        url: String,
        description: String,
        lifeline: Option<std::process::ChildStdin>,
    ) -> Server {
        Server {
            backend,
            url,
            description,
            _lifeline: lifeline,
        }
    }
}

static SERVER: OnceLock<Result<Server, String>> = OnceLock::new();

/// The server for this test process: found (or started) on first use, then shared.
pub fn server() -> Result<&'static Server, KitError> {
    let chosen = SERVER.get_or_init(|| {
        // testcontainers' blocking client starts a runtime of its own, which panics inside a
        // test's runtime; a plain thread has none.
        let chosen = std::thread::spawn(choose)
            .join()
            .unwrap_or_else(|_| Err("the kit panicked while looking for a server".into()));
        if let Ok(server) = &chosen {
            // Bypass the test harness's output capture: this line should be seen once per run.
            let _ = writeln!(std::io::stderr(), "workbook: {}", server.description);
        }
        chosen
    });
    chosen
        .as_ref()
        .map_err(|message| KitError::Unavailable(message.clone()))
}

/// Makes this process's server a throwaway cluster of the PostgreSQL binaries installed here that
/// commits as a production server does: its data in the temporary directory (`TMPDIR`, or /tmp),
/// not in memory, so on disk unless that directory is a tmpfs itself; `fsync`,
/// `synchronous_commit` and `full_page_writes` on; otherwise the tests' settings. For measuring
/// what durability costs (`guard_cost --durable`), not for tests. The server is chosen once per
/// process: call this before anything asks for [`server`], or it fails.
pub fn durable_local_server() -> Result<&'static Server, KitError> {
    let mut started = false;
    let chosen = SERVER.get_or_init(|| {
        started = true;
        let server = local_cluster::start_durable().map_err(|e| e.to_string());
        if let Ok(server) = &server {
            let _ = writeln!(std::io::stderr(), "workbook: {}", server.description);
        }
        server
    });
    if !started {
        return Err(KitError::Unavailable(
            "the server was chosen already: ask for the durable one first".into(),
        ));
    }
    chosen
        .as_ref()
        .map_err(|message| KitError::Unavailable(message.clone()))
}

fn choose() -> Result<Server, String> {
    let forced = std::env::var(BACKEND_VAR).ok();
    let database_url = std::env::var("DATABASE_URL")
        .ok()
        .filter(|url| !url.is_empty());
    match forced.as_deref() {
        Some("url") => from_database_url(database_url).ok_or_else(|| {
            format!("{BACKEND_VAR}=url, but DATABASE_URL is not set: set it to your server's URL")
        }),
        Some("docker") => docker::start().map_err(|e| e.to_string()),
        Some("local") => local_cluster::start().map_err(|e| e.to_string()),
        Some(other) => Err(format!(
            "{BACKEND_VAR}={other:?} is not a backend: use url, docker or local (or unset it to \
             take the first that works)"
        )),
        None => first_available(database_url),
    }
}

fn first_available(database_url: Option<String>) -> Result<Server, String> {
    if let Some(server) = from_database_url(database_url) {
        return Ok(server);
    }
    let mut tried = vec!["- DATABASE_URL is not set".to_string()];
    match docker::engine_endpoint() {
        Some(endpoint) => match docker::start_at(&endpoint) {
            Ok(server) => return Ok(server),
            Err(e) => tried.push(format!("- a Docker engine answered, but: {e}")),
        },
        None => tried.push("- no Docker engine answered a ping".to_string()),
    }
    match local_cluster::start() {
        Ok(server) => Ok(server),
        Err(e) => {
            tried.push(format!("- local PostgreSQL binaries: {e}"));
            Err(KitError::NoServer {
                tried: tried.join("\n"),
            }
            .to_string())
        }
    }
}

fn from_database_url(url: Option<String>) -> Option<Server> {
    let url = url?;
    let description = format!(
        "using the server at DATABASE_URL ({}); each test gets its own database, dropped afterwards",
        redact_password(&url)
    );
    Some(Server::new(Backend::DatabaseUrl, url, description, None))
}

/// `postgres://me:secret@host/db` → `postgres://me:***@host/db`, for messages.
/// `url`, connected to `database`: only the URL's path changes, whatever else it holds (a
/// port, a password, `?sslmode=…`, `?host=/socket/dir`) stays as it is.
pub(crate) fn url_of(url: &str, database: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            parsed.set_path(&format!("/{database}"));
            parsed.to_string()
        }
        Err(_) => url.to_string(),
    }
}

pub(crate) fn redact_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let Some((userinfo, host)) = rest.rsplit_once('@') else {
        return url.to_string();
    };
    match userinfo.split_once(':') {
        Some((user, _password)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact_password;

    #[test]
    fn passwords_never_reach_messages() {
        assert_eq!(
            redact_password("postgres://me:secret@db:5432/x"),
            "postgres://me:***@db:5432/x"
        );
        assert_eq!(redact_password("postgres://me@db/x"), "postgres://me@db/x");
        assert_eq!(redact_password("not a url"), "not a url");
        assert_eq!(
            redact_password("postgres://me:p@ss@db/x"),
            "postgres://me:***@db/x"
        );
    }
}
