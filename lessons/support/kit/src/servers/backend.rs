//! What a server the tests use is, whichever way it was found: the types the backends (Docker,
//! the local binaries, `DATABASE_URL`) make, and the URL helpers they share. The choice among
//! them is server.rs's; the backends depend on this file, never on that one.

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

/// `postgres://me:secret@host/db` → `postgres://me:***@host/db`, for messages.
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
