//! `cargo run --release -p workbook-measure --bin test_db_cost [-- --tests N]`: what a fresh
//! database per test costs with the kit (one template per schema, migrated once, then `CREATE
//! DATABASE … TEMPLATE` per test) against `#[sqlx::test]` (a database created empty per test,
//! then migrated), on the same server, schemas and test body.
//!
//! Each "test" gets its database, opens a pool, runs one query and ends, as the workbook's
//! scenarios do; the wall time of N of them is measured one at a time and two at a time (a
//! two-core machine's libtest runs two). `#[sqlx::test]` is called through the function its
//! attribute expands to (`sqlx::testing::TestFn::run_test`, behind the `migrate` feature), so
//! that no macro feature is needed; it reads the server from `DATABASE_URL`, so without one this
//! program starts the kit's server and runs itself again with `DATABASE_URL` pointing to it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use kit::{Schema, TestDatabase};
use sqlx::PgPool;
use sqlx::migrate::Migrator;
use sqlx::testing::{TestArgs, TestFn};

fn main() -> ExitCode {
    let tests = match parse(std::env::args().skip(1)) {
        Ok(tests) => tests,
        Err(message) => {
            eprintln!("{message}\nusage: test_db_cost [--tests N]   (default 200)");
            return ExitCode::from(2);
        }
    };
    // `#[sqlx::test]` finds its server in `DATABASE_URL` only. Setting it in this process is
    // unsafe (another thread may read the environment), so when it is not set this process finds
    // the kit's server and runs itself again with it set; the kit, seeing it, uses the same one.
    if std::env::var_os("DATABASE_URL").is_none_or(|url| url.is_empty()) {
        return match kit::server().map(|server| server.url.clone()) {
            Ok(url) => again_with(&url),
            Err(error) => {
                eprintln!("test_db_cost: {error}");
                ExitCode::FAILURE
            }
        };
    }
    let migrations = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../../migrations"
    ));
    println!(
        "{tests} tests, each: a database with the schema, a pool, one query, the database dropped"
    );
    for schema in ["ledger", "outbox_relay"] {
        let dir = migrations.join(schema);
        let migrator = match static_migrator(&dir) {
            Ok(migrator) => migrator,
            Err(error) => {
                eprintln!("test_db_cost: {}: {error}", dir.display());
                return ExitCode::FAILURE;
            }
        };
        for parallel in [1, 2] {
            let kit = wall(tests, parallel, |_| kit_test(&dir));
            let sqlx = wall(tests, parallel, |i| sqlx_test(migrator, schema, i));
            match (kit, sqlx) {
                (Ok(kit), Ok(sqlx)) => println!(
                    "{schema:<13} {parallel} at a time: kit {:.1} ms per test, #[sqlx::test] {:.1} ms \
                     per test ({:.2}×)",
                    kit * 1e3 / tests as f64,
                    sqlx * 1e3 / tests as f64,
                    sqlx / kit
                ),
                (Err(error), _) | (_, Err(error)) => {
                    eprintln!("test_db_cost: {error}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    ExitCode::SUCCESS
}

/// This program, run again with the same arguments and `DATABASE_URL` set to `url`.
fn again_with(url: &str) -> ExitCode {
    let status = std::env::current_exe().and_then(|program| {
        std::process::Command::new(program)
            .args(std::env::args_os().skip(1))
            .env("DATABASE_URL", url)
            .status()
    });
    match status {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("test_db_cost: could not run itself again: {error}");
            ExitCode::FAILURE
        }
    }
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<usize, String> {
    match (args.next().as_deref(), args.next()) {
        (None, _) => Ok(200),
        (Some("--tests"), Some(n)) => n.parse().map_err(|_| format!("not a number: {n}")),
        (Some(other), _) => Err(format!("unknown argument: {other}")),
    }
}

/// Seconds for `tests` runs of `test`, `parallel` threads each taking the next.
fn wall(
    tests: usize,
    parallel: usize,
    test: impl Fn(usize) -> Result<(), String> + Sync,
) -> Result<f64, String> {
    // One run first, outside the clock: the kit builds its template, sqlx its bookkeeping schema.
    test(tests)?;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..parallel)
            .map(|_| {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= tests {
                            return Ok::<(), String>(());
                        }
                        test(i)?;
                    }
                })
            })
            .collect();
        threads
            .into_iter()
            .try_for_each(|thread| thread.join().unwrap_or(Err("a test panicked".into())))
    })?;
    Ok(started.elapsed().as_secs_f64())
}

/// The kit's way, as every scenario runs it: its own runtime, as `#[tokio::test]` gives.
fn kit_test(dir: &std::path::Path) -> Result<(), String> {
    let runtime = (tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build())
    .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let db = TestDatabase::create(&Schema::from_dirs([dir]))
            .await
            .map_err(|e| e.to_string())?;
        let pool = db.pool(1).await.map_err(|e| e.to_string())?;
        body(&pool).await;
        pool.close().await;
        Ok(())
    })
    // The database is dropped here, as at the end of a test.
}

/// `#[sqlx::test(migrator = …)] async fn test_i(pool: PgPool)`, as the attribute expands it
/// (its migrator is a static, embedded at compile time: loaded once here, outside the clock).
fn sqlx_test(migrator: &'static Migrator, schema: &str, i: usize) -> Result<(), String> {
    // The attribute's test path is a static too; one leaked per test is a few bytes.
    let name = format!("test_db_cost::{schema}::test_{i}");
    let mut args = TestArgs::new(Box::leak(name.into_boxed_str()));
    args.migrator(migrator);
    let test: fn(PgPool) -> _ = |pool: PgPool| async move { body(&pool).await };
    test.run_test(args);
    Ok(())
}

/// The migrations of `dir`, loaded as `sqlx::migrate!` embeds them, for the life of the process.
fn static_migrator(dir: &std::path::Path) -> Result<&'static Migrator, String> {
    let runtime = (tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build())
    .map_err(|e| e.to_string())?;
    let migrator = runtime
        .block_on(Migrator::new(dir))
        .map_err(|e| e.to_string())?;
    Ok(Box::leak(Box::new(migrator)))
}

/// What every test does with its database: one query.
async fn body(pool: &PgPool) {
    sqlx::query("SELECT 1")
        .execute(pool)
        .await
        .expect("the test's query");
}
