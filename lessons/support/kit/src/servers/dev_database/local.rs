//! The development database as a cluster of the PostgreSQL binaries installed here, its data in
//! the folder and its socket private to the server's user.

use std::path::{Path, PathBuf};

use super::{DIR_VAR, DevServer, stable_hash};
use crate::error::KitError;
use crate::servers::local_cluster::{ServerOwner, find_bindir, major_version};

/// The port in the socket's file name (`.s.PGSQL.5432`). Given explicitly, so that a `PGPORT`
/// in the student's shell cannot move it; no TCP port is opened, so it collides with nothing.
const PORT: u16 = 5432;

fn bindir() -> Result<PathBuf, KitError> {
    find_bindir().ok_or_else(|| {
        KitError::provision(
            "local binaries",
            "no initdb/pg_ctl found (Debian/Ubuntu: apt-get install postgresql; macOS: brew \
             install postgresql@16), and no Docker engine could be used instead (that takes a \
             running engine on this machine and the docker command)",
        )
    })
}

/// Where the cluster lives: `dir`, unless the server runs as another user (we are root, and
/// PostgreSQL refuses to run as root) who cannot reach it, because a folder above it is private
/// (a home, a mktemp directory). Then a folder of /var/tmp named after it, the same every time.
pub(super) fn home(dir: &Path) -> Result<PathBuf, KitError> {
    let owner = ServerOwner::for_this_process()?;
    if !owner.is_another_user() {
        return Ok(dir.to_path_buf());
    }
    // The nearest folder that exists already: the rest is made for the server, and handed to it.
    let above = dir
        .ancestors()
        .find(|folder| folder.exists())
        .unwrap_or(dir);
    let reachable =
        (owner.command("test").arg("-x").arg(above).status()).is_ok_and(|status| status.success());
    Ok(if reachable {
        dir.to_path_buf()
    } else {
        PathBuf::from(format!(
            "/var/tmp/idempotency-workbook-db-{:012x}",
            stable_hash(dir) & 0xffff_ffff_ffff
        ))
    })
}

/// `pg_ctl status` exits 0 when the server runs. Where it listens comes from the server itself.
pub(super) fn running(dir: &Path) -> Result<Option<DevServer>, KitError> {
    let dir = &home(dir)?;
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
    if !running {
        return Ok(None);
    }
    let (port, socket) = listening_on(&data).ok_or_else(|| {
        KitError::provision(
            "the development database",
            format!(
                "it runs, but {} does not say where it listens",
                data.join("postmaster.pid").display()
            ),
        )
    })?;
    Ok(Some(DevServer {
        url: url(&socket, port),
        description: format!(
            "a PostgreSQL cluster of this workbook, data in {}, socket in {}",
            data.display(),
            socket.display()
        ),
    }))
}

pub(super) fn stop(dir: &Path) -> Result<Option<DevServer>, KitError> {
    let Some(server) = running(dir)? else {
        return Ok(None);
    };
    let output = ServerOwner::for_this_process()?
        .command(bindir()?.join("pg_ctl"))
        .args(["stop", "-w", "-m", "fast", "-D"])
        .arg(home(dir)?.join("data"))
        .output()
        .map_err(|e| KitError::provision("pg_ctl stop", e))?;
    if !output.status.success() {
        return Err(KitError::provision(
            "pg_ctl stop",
            String::from_utf8_lossy(&output.stderr).trim(),
        ));
    }
    Ok(Some(server))
}

pub(super) fn start(dir: &Path) -> Result<DevServer, KitError> {
    if let Some(server) = running(dir)? {
        return Ok(server);
    }
    let bindir = bindir()?;
    let major = major_version(&bindir)?;
    let owner = ServerOwner::for_this_process()?;
    let dir = &home(dir)?;
    let (data, socket) = (dir.join("data"), socket_dir(dir));
    for folder in [dir, &socket] {
        make_private_folder(folder, &owner)?;
    }
    reachable_by(&owner, dir)?;
    if !data.join("PG_VERSION").exists() {
        // An initdb that was interrupted leaves a folder initdb refuses to reuse.
        let _ = std::fs::remove_dir_all(&data);
        let output = owner
            .command(bindir.join("initdb"))
            .args(["--auth=trust", "--encoding=UTF8", "--locale=C"])
            .args(["--username=postgres", "--pgdata"])
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
    // pg_ctl hands -o to a shell: the folder is quoted for it.
    let options = format!(
        "-k {} -p {PORT} -c listen_addresses='' -c unix_socket_permissions=0700",
        shell_quote(&socket.display().to_string())
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
    running(dir)?.ok_or_else(|| {
        KitError::provision(
            "pg_ctl start",
            "it said the server started, but it is not running",
        )
    })
}

/// A folder only the server's user may enter. When we are root, the server runs as `postgres`
/// (PostgreSQL refuses to run as root), so the folder is handed to that user.
fn make_private_folder(folder: &Path, owner: &ServerOwner) -> Result<(), KitError> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let failed = |doing: &str, e: &dyn std::fmt::Display| {
        KitError::provision(format!("{doing} {}", folder.display()), e.to_string())
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(folder)
        .map_err(|e| failed("creating", &e))?;
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| failed("making private", &e))?;
    nix::unistd::chown(
        folder,
        Some(nix::unistd::Uid::from_raw(owner.uid)),
        Some(nix::unistd::Gid::from_raw(owner.gid)),
    )
    .map_err(|e| failed("handing to the server", &e))
}

/// The server's user must reach its folder: a private folder above it (a home, a mktemp
/// directory) would stop it later with an obscure error.
fn reachable_by(owner: &ServerOwner, dir: &Path) -> Result<(), KitError> {
    let reachable = owner
        .command("sh")
        .args(["-c", r#"test -w "$1" && test -x "$1""#, "sh"])
        .arg(dir)
        .status()
        .is_ok_and(|status| status.success());
    if reachable {
        return Ok(());
    }
    Err(KitError::provision(
        "local binaries",
        format!(
            "the server runs as uid {} (PostgreSQL refuses to run as root), and that user cannot \
             reach {}: a folder above it is private. Set {DIR_VAR} to a folder it can reach (say \
             /var/tmp/workbook-db), or run the workbook as an ordinary user",
            owner.uid,
            dir.display()
        ),
    ))
}

/// A unix socket's path is limited to about 100 bytes: the socket lives in the cluster's own
/// folder when that is short enough, else in a folder of /tmp named after it (not `TMPDIR`,
/// which is long on macOS). Where a running server listens is read back from the server, so
/// no URL depends on this choice being made the same way twice.
fn socket_dir(dir: &Path) -> PathBuf {
    if dir.as_os_str().len() <= 80 {
        return dir.to_path_buf();
    }
    PathBuf::from(format!(
        "/tmp/wbdb-{:012x}",
        stable_hash(dir) & 0xffff_ffff_ffff
    ))
}

/// The port and socket folder of a running cluster: lines 4 and 5 of its `postmaster.pid`.
fn listening_on(data: &Path) -> Option<(u16, PathBuf)> {
    let pid_file = std::fs::read_to_string(data.join("postmaster.pid")).ok()?;
    let lines: Vec<&str> = pid_file.lines().collect();
    let port = lines.get(3)?.trim().parse().ok()?;
    let socket = lines
        .get(4)
        .map(|dir| dir.trim())
        .filter(|dir| !dir.is_empty())?;
    Some((port, PathBuf::from(socket)))
}

/// A socket folder as a URL's host: every byte but the unreserved ones percent-encoded, so a
/// folder with a space, a quote or a `#` in its name still makes a valid URL.
fn url(socket: &Path, port: u16) -> String {
    let host: String = socket
        .as_os_str()
        .as_encoded_bytes()
        .iter()
        .map(|&byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect();
    format!("postgresql://postgres@{host}:{port}/postgres")
}

/// `'…'` for a POSIX shell, a `'` inside written as `'\''`.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
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
        let short = Path::new("/w/target/workbook-db");
        assert_eq!(socket_dir(short), short);
    }

    #[test]
    fn any_folder_makes_a_url_and_a_shell_word() {
        assert_eq!(
            url(Path::new("/home/a b/it's#1"), 5432),
            "postgresql://postgres@%2Fhome%2Fa%20b%2Fit%27s%231:5432/postgres"
        );
        assert_eq!(shell_quote("/it's"), r"'/it'\''s'");
    }
}
