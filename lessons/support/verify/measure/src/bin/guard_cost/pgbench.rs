//! The ceiling every strategy is compared with: the unguarded handler's transaction (one status
//! update and one ledger insert) run by `pgbench`, PostgreSQL's own load generator, on the same
//! server with as many clients as the strategies have workers.

use std::path::PathBuf;
use std::process::Command;

use kit::{Schema, TestDatabase};

/// The transaction, in pgbench's script language: a random payment each time.
fn script(payments: usize) -> String {
    format!(
        "\\set p random(0, {last})
BEGIN;
UPDATE payments SET status = 'captured' WHERE id = 'pay-' || :p::text;
INSERT INTO ledger (event_id, payment_id, outcome)
  VALUES ('pgbench-' || :client_id::text || '-' || :p::text, 'pay-' || :p::text, 'captured');
END;
",
        last = payments - 1
    )
}

/// Transactions per second with `clients` clients for `seconds` seconds.
pub async fn ceiling(
    schema: &Schema,
    clients: usize,
    seconds: u32,
    payments: usize,
) -> Result<f64, Box<dyn std::error::Error>> {
    let pgbench = find().ok_or(
        "pgbench not found (looked in PATH and /usr/lib/postgresql/*/bin): it comes with \
         the PostgreSQL server package (Debian: postgresql-15)",
    )?;
    let db = TestDatabase::create(schema).await?;
    crate::cell::seed(&db.session().await?, payments, clients).await?;
    let dir = std::env::temp_dir().join(format!("guard-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("unguarded.sql");
    std::fs::write(&file, script(payments))?;
    let output = Command::new(&pgbench)
        // -n: no vacuum of pgbench's own tables, which this database does not have;
        // -M prepared: statements prepared once per client, as sqlx does.
        .args(["-n", "-M", "prepared", "-c", &clients.to_string()])
        .args([
            "-j",
            &clients.min(2).to_string(),
            "-T",
            &seconds.to_string(),
        ])
        .arg("-f")
        .arg(&file)
        .arg(db.url())
        .output()?;
    let _ = std::fs::remove_dir_all(&dir);
    let printed = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "pgbench failed ({}):\n{printed}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    // "tps = 896.967014 (without initial connection time)"
    printed
        .lines()
        .find_map(|line| line.strip_prefix("tps = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|tps| tps.parse().ok())
        .ok_or_else(|| format!("no \"tps = \" line in pgbench's output:\n{printed}").into())
}

fn find() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join("pgbench"));
    let installed = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|version| version.path().join("bin/pgbench"));
    // Debian's /usr/bin/pgbench is a wrapper that wants a cluster of its own: prefer the real one.
    installed.chain(on_path).find(|path| path.is_file())
}
