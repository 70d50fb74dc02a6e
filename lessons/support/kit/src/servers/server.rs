//! Which PostgreSQL server the tests use, decided once per test process.
//!
//! Only plain data (a URL) is kept in the process-wide static. Every `#[tokio::test]` runs on a
//! runtime of its own, and a pool or connection opened on one runtime breaks on another, so each
//! test opens its own connections from this URL.

use std::io::Write;
use std::sync::OnceLock;

use super::backend::{BACKEND_VAR, Backend, Server, redact_password};
use super::{docker, local_cluster};
use crate::error::KitError;

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
