//! Test databases left behind. Each test drops its database when it ends, but a test process
//! that is killed (Ctrl-C, kill -9, a deadline) runs no more code: on a throwaway server that
//! costs nothing, on a `DATABASE_URL` server the databases would pile up for good. So every
//! test database is named after the machine and the process that made it, and the next test
//! process on the same machine drops those whose process is gone.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;

use sqlx::{AssertSqlSafe, PgConnection};

use crate::error::KitError;
use crate::servers::local_cluster::process_exists;

const PREFIX: &str = "wb_test_";

/// `wb_test_<machine>_<pid>_<n>`: the machine, so that processes of other machines sharing the
/// server are never judged by this machine's process table.
pub(crate) fn test_database_name(n: u32) -> String {
    format!("{PREFIX}{}_{}_{n}", machine_tag(), std::process::id())
}

/// Drops the test databases of this machine's test processes that no longer exist, and says
/// so on stderr. The kit does this once per test process on a `DATABASE_URL` server; it is
/// public so that its own test can call it.
pub async fn drop_leftovers(admin: &mut PgConnection) -> Result<Vec<String>, KitError> {
    let pattern = format!("{PREFIX}{}\\_%", machine_tag());
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname::text FROM pg_database WHERE datname LIKE $1")
            .bind(pattern)
            .fetch_all(&mut *admin)
            .await
            .map_err(KitError::database("look for test databases left behind"))?;
    let mut dropped = Vec::new();
    for name in names {
        let Some(pid) = owner_pid(&name) else {
            continue;
        };
        if process_exists(pid) {
            continue;
        }
        // Only names of the exact form above reach here: letters, digits and underscores.
        sqlx::query(AssertSqlSafe(format!(
            r#"DROP DATABASE IF EXISTS "{name}" WITH (FORCE)"#
        )))
        .execute(&mut *admin)
        .await
        .map_err(KitError::database(
            "drop a database left behind by a killed test process",
        ))?;
        dropped.push(name);
    }
    if !dropped.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "workbook: dropped {} test database(s) left behind by test processes that were \
             killed before they could clean up: {}",
            dropped.len(),
            dropped.join(", ")
        );
    }
    Ok(dropped)
}

/// The pid in `wb_test_<machine>_<pid>_<n>`, if the name is exactly of that form.
fn owner_pid(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(PREFIX)?.strip_prefix(&machine_tag())?;
    let (pid, n) = rest.strip_prefix('_')?.split_once('_')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n)).then(|| pid.parse().ok())?
}

/// Whether the process `pid` of this machine has ended: what makes a thing named after it a
/// leftover (the Kafka track's topics and groups on a cluster of the student's are named so
/// too).
pub fn process_is_gone(pid: i32) -> bool {
    !process_exists(pid)
}

/// Six hex digits of the host name: short enough for PostgreSQL's 63-byte names.
pub fn machine_tag() -> String {
    let host = nix::unistd::gethostname()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut hasher = DefaultHasher::new();
    host.hash(&mut hasher);
    format!("{:06x}", hasher.finish() & 0xff_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_of_the_exact_form_have_an_owner() {
        let ours = test_database_name(3);
        assert_eq!(owner_pid(&ours), Some(std::process::id() as i32));
        assert_eq!(owner_pid(&format!("{ours}x")), None);
        assert_eq!(owner_pid("wb_test_123_4"), None);
        assert_eq!(owner_pid("wb_template_abc"), None);
    }
}
