//! `cargo workbook deliver NN`: events as JSON lines, one delivery each, through a lesson's
//! handler, against the development database. A console producer for the workbook.
//!
//! Each line is checked before anything of it is written: a line that does not parse stops the
//! feed with its number and what is wrong with it, and nothing of it reaches the database.
//! Lines before it were delivered, each in the handler's own transaction, and stay delivered:
//! feeding the file again redelivers them, which a correct handler turns into no-ops.

use std::future::Future;
use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::str::FromStr;

use sqlx::migrate::MigrateError;
use sqlx::postgres::PgConnectOptions;
use sqlx::{AssertSqlSafe, Connection, PgConnection, PgPool};

use crate::error::KitError;
use crate::servers::dev_database;
use crate::servers::schema::Schema;
use crate::words::sqlstate::{code_of, describe_sqlx};

/// A by-hand feed's test of its bad lines, shared by every lesson that has a feed: `parse` must
/// refuse each `(line, problem)` with a message that contains the problem, since the message is
/// all a reader at a terminal gets.
pub fn assert_each_refused<'a, T: std::fmt::Debug>(
    cases: impl IntoIterator<Item = (impl AsRef<str>, &'a str)>,
    parse: impl Fn(&str) -> Result<T, String>,
) {
    for (line, problem) in cases {
        let line = line.as_ref();
        let message = parse(line).expect_err(line);
        assert!(
            message.contains(problem),
            "{line}\n  said: {message}\n  wanted: {problem}"
        );
    }
}

/// What one lesson's `deliver` knows: how to read its events and how to hand one over.
pub trait Feed: Sync {
    type Event: Send;

    /// The event on one line, or what is wrong with it, in a sentence.
    fn parse(&self, line: &str) -> Result<Self::Event, String>;

    /// Hands the event over (to the handler, or for an event that only sets the stage, such as
    /// a new order, straight to the table), and says in a line what the delivery did.
    fn deliver(
        &self,
        pool: &PgPool,
        event: Self::Event,
    ) -> impl Future<Output = Result<String, String>> + Send;
}

/// Why a feed stopped early.
#[derive(Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The line is not an event: nothing of it was written.
    Rejected { line: usize, problem: String },
    /// The handler returned an error. A correct handler leaves nothing of such a delivery
    /// behind (its transaction rolled back); a student's may not, so nothing here claims it.
    Failed { line: usize, error: String },
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Rejected { line, problem } => write!(
                f,
                "line {line} was rejected, and nothing of it was written: {problem}"
            ),
            Stopped::Failed { line, error } => write!(
                f,
                "line {line}'s delivery failed, the handler returned an error: {error}"
            ),
        }
    }
}

/// Delivers every line of `input` in order, and writes a line of report for each to `out`.
/// Returns how many lines were delivered, or why it stopped (after that many).
pub async fn run<F: Feed>(
    feed: &F,
    pool: &PgPool,
    input: impl BufRead,
    out: &mut impl Write,
) -> Result<usize, (usize, Stopped)> {
    let mut delivered = 0;
    for (index, line) in input.lines().enumerate() {
        let number = index + 1;
        let rejected = |problem: String| {
            (
                delivered,
                Stopped::Rejected {
                    line: number,
                    problem,
                },
            )
        };
        let line = line.map_err(|e| {
            rejected(if e.kind() == std::io::ErrorKind::InvalidData {
                "it is not UTF-8 text".to_string()
            } else {
                format!("it could not be read: {e}")
            })
        })?;
        // A byte-order mark, as some editors save a file, is not part of the first event.
        let line = line.trim_start_matches('\u{feff}').trim();
        if line.is_empty() {
            continue;
        }
        if holds_nul(line) {
            return Err(rejected(
                "a string in it holds \\u0000, a character no PostgreSQL text can store".into(),
            ));
        }
        // serde_json places its errors "at line 1 column N" of the one-line text it was given,
        // which reads like a line of the input: only the column means anything here.
        let event = feed
            .parse(line)
            .map_err(|problem| rejected(problem.replace(" at line 1 column ", " at column ")))?;
        let report = (feed.deliver(pool, event).await).map_err(|error| {
            (
                delivered,
                Stopped::Failed {
                    line: number,
                    error,
                },
            )
        })?;
        let _ = writeln!(out, "line {number}: {report}");
        let _ = out.flush();
        delivered += 1;
    }
    Ok(delivered)
}

/// The row a handler's event is about, as a feed names it when the handler fails: `table` holds
/// it under `id`, and `advice` says which line would create it.
pub struct Subject<'a> {
    pub table: &'static str,
    pub noun: &'static str,
    pub id: &'a str,
    pub advice: String,
}

/// A handler's error in words, by its SQLSTATE. A query that found no row (sqlx's
/// `RowNotFound`) is blamed on a missing row only when that row is indeed missing: a student's
/// handler may have looked up something else.
pub async fn handler_failed(pool: &PgPool, error: sqlx::Error, about: Subject<'_>) -> String {
    if !matches!(error, sqlx::Error::RowNotFound) {
        return describe_sqlx(&error);
    }
    // `table` is one of the feed's own constants, never input.
    let exists: Result<bool, _> = sqlx::query_scalar(AssertSqlSafe(format!(
        "SELECT EXISTS (SELECT 1 FROM {} WHERE id = $1)",
        about.table
    )))
    .bind(about.id)
    .fetch_one(pool)
    .await;
    match exists {
        Ok(false) => format!(
            "there is no {} {:?} (a query of the handler found no row: sqlx's RowNotFound); {}",
            about.noun, about.id, about.advice
        ),
        _ => "a query of the handler expected a row and found none (sqlx's RowNotFound)".into(),
    }
}

/// Whether a string of the JSON holds U+0000, which PostgreSQL refuses in text (22021): refused
/// here, by line, rather than failing in the database as if the delivery had. A line that is not
/// JSON is left to the feed, which says why.
fn holds_nul(line: &str) -> bool {
    fn any_nul(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::String(text) => text.contains('\0'),
            serde_json::Value::Array(items) => items.iter().any(any_nul),
            serde_json::Value::Object(fields) => fields
                .iter()
                .any(|(key, value)| key.contains('\0') || any_nul(value)),
            _ => false,
        }
    }
    line.contains("\\u0000")
        && serde_json::from_str::<serde_json::Value>(line).is_ok_and(|value| any_nul(&value))
}

/// The `deliver` binary of a lesson's exercise or solution:
/// `deliver --database NAME [--fresh] [FILE|-]`, run by `cargo workbook deliver`.
pub fn main<F: Feed>(feed: F, schema: Schema) -> ExitCode {
    by_hand_binary(Arguments::parse, async |arguments: Arguments| {
        let pool = match lesson_database(&arguments.database, arguments.fresh, &schema).await {
            Ok(pool) => pool,
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::FAILURE;
            }
        };
        let input: Box<dyn BufRead> = match &arguments.input {
            None => Box::new(std::io::stdin().lock()),
            Some(path) => match std::fs::File::open(path) {
                Ok(file) => Box::new(std::io::BufReader::new(file)),
                Err(e) => {
                    eprintln!("error: could not open {path}: {e}");
                    return ExitCode::FAILURE;
                }
            },
        };
        let result = run(&feed, &pool, input, &mut std::io::stdout()).await;
        pool.close().await;
        match result {
            Ok(delivered) => {
                eprintln!("{delivered} event(s) delivered to {}.", arguments.database);
                ExitCode::SUCCESS
            }
            Err((delivered, stopped)) => {
                eprintln!("error: {stopped}");
                let database = &arguments.database;
                let before = match delivered {
                    0 => format!("Nothing before it was delivered to {database}."),
                    n => format!(
                        "The {n} event(s) before it were delivered to {database}, and stay \
                         delivered; no line after it was read."
                    ),
                };
                let next = match stopped {
                    Stopped::Rejected { .. } => "Fix the line, then deliver the input again",
                    Stopped::Failed { .. } => "Deal with the cause, then deliver the input again",
                };
                let again = if delivered == 0 {
                    "."
                } else {
                    ": the events already delivered arrive a second time, which a correct \
                     handler turns into no-ops."
                };
                eprintln!("{before} {next}{again}");
                ExitCode::FAILURE
            }
        }
    })
}

/// A by-hand binary (`deliver`, a lesson's `serve`): its arguments parsed, a bad one refused with
/// its reason and exit code 2, then `work` on a runtime of one thread, whose exit code it returns.
pub fn by_hand_binary<A>(
    parse: impl FnOnce(std::iter::Skip<std::env::Args>) -> Result<A, String>,
    work: impl AsyncFnOnce(A) -> ExitCode,
) -> ExitCode {
    let arguments = match parse(std::env::args().skip(1)) {
        Ok(arguments) => arguments,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(work(arguments))
}

struct Arguments {
    database: String,
    fresh: bool,
    input: Option<String>,
}

impl Arguments {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Arguments, String> {
        let (mut database, mut fresh, mut input) = (None, false, None);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--database" => database = args.next(),
                "--fresh" => fresh = true,
                "-" => input = None,
                other if other.starts_with('-') => return Err(format!("unknown option {other}")),
                other => input = Some(other.to_string()),
            }
        }
        let database = database.ok_or("--database NAME is required")?;
        check_database_name(&database)?;
        Ok(Arguments {
            database,
            fresh,
            input,
        })
    }
}

/// A name the workbook gives its databases (`workbook_11_mine`), or why `name` is not one. It is
/// spliced into CREATE/DROP DATABASE, which take no parameters.
pub fn check_database_name(name: &str) -> Result<(), String> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("{name:?} is not a database name the workbook uses"));
    }
    Ok(())
}

/// A lesson's database on the development server (`cargo workbook db start`), as `deliver` and
/// `serve` use it: created (afresh with `fresh`) and migrated to the lesson's schema. The error
/// says what to do, in a sentence.
pub async fn lesson_database(name: &str, fresh: bool, schema: &Schema) -> Result<PgPool, String> {
    check_database_name(name)?;
    let pool = open(name, fresh).await.map_err(|e| e.to_string())?;
    let migrator = schema.migrator().await.map_err(|e| e.to_string())?;
    migrator
        .run(&pool)
        .await
        .map_err(|error| migration_failed(error, schema, name))?;
    Ok(pool)
}

async fn open(name: &str, fresh: bool) -> Result<PgPool, KitError> {
    let server = dev_database::DevDatabase::from_env().running()?;
    let admin_options = PgConnectOptions::from_str(&server.url)
        .map_err(KitError::database("parse the development database's URL"))?;
    let mut admin = PgConnection::connect_with(&admin_options)
        .await
        .map_err(KitError::database("connect to the development database"))?;
    if fresh {
        sqlx::query(AssertSqlSafe(format!(
            r#"DROP DATABASE IF EXISTS "{name}" WITH (FORCE)"#
        )))
        .execute(&mut admin)
        .await
        .map_err(KitError::database("drop the lesson's database"))?;
    }
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(name)
            .fetch_one(&mut admin)
            .await
            .map_err(KitError::database("look for the lesson's database"))?;
    if !exists {
        let created = sqlx::query(AssertSqlSafe(format!(r#"CREATE DATABASE "{name}""#)))
            .execute(&mut admin)
            .await;
        // Two first deliveries at once both see no database; the one that loses the race to
        // create it gets 42P04 (duplicate_database), or 23505 from the catalog's own index.
        match created {
            Err(error) if matches!(code_of(&error).as_deref(), Some("42P04" | "23505")) => {}
            other => {
                other.map_err(KitError::database("create the lesson's database"))?;
            }
        }
    }
    let _ = admin.close().await;
    PgPool::connect_with(admin_options.database(name))
        .await
        .map_err(KitError::database("connect to the lesson's database"))
}

/// Each migration runs in a transaction of its own, so one that fails keeps nothing of itself.
fn migration_failed(error: MigrateError, schema: &Schema, database: &str) -> String {
    match error {
        MigrateError::ExecuteMigration(error, version) => format!(
            "the migration {} does not apply to {database}: {}. Nothing of it was kept: fix the \
             SQL and run the command again",
            schema.file_of(version),
            error.as_database_error().map_or_else(
                || error.to_string(),
                |e| format!(
                    "{} (SQLSTATE {})",
                    e.message(),
                    e.code().unwrap_or_default()
                )
            )
        ),
        MigrateError::VersionMismatch(version) => format!(
            "the migration {} changed after it was applied to {database}. Run the command with \
             --fresh to build {database} again from the migrations as they are now",
            schema.file_of(version)
        ),
        other => format!("the migrations of {database} could not run: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Arguments, String> {
        Arguments::parse(args.iter().map(|s| s.to_string()))
    }

    /// Takes any JSON; delivering writes nothing (the pool is never connected).
    struct Echo;

    impl Feed for Echo {
        type Event = String;

        fn parse(&self, line: &str) -> Result<String, String> {
            serde_json::from_str::<serde_json::Value>(line)
                .map(|_| line.to_string())
                .map_err(|e| format!("it is not valid JSON ({e})"))
        }

        async fn deliver(&self, _: &PgPool, event: String) -> Result<String, String> {
            Ok(event)
        }
    }

    async fn feed(input: &str) -> (Result<usize, (usize, Stopped)>, String) {
        let pool = PgPool::connect_lazy("postgres://nobody@localhost/nothing").unwrap();
        let mut out = Vec::new();
        let result = run(&Echo, &pool, input.as_bytes(), &mut out).await;
        (result, String::from_utf8(out).unwrap())
    }

    #[tokio::test]
    async fn a_byte_order_mark_blank_lines_and_crlf_are_not_events() {
        let (result, out) = feed("\u{feff}{\"a\":1}\r\n\r\n  \n{\"b\":2}\n").await;
        assert_eq!(result, Ok(2));
        assert_eq!(out, "line 1: {\"a\":1}\nline 4: {\"b\":2}\n");
    }

    #[tokio::test]
    async fn a_rejected_line_is_named_with_its_column_not_serdes_line() {
        let (result, out) = feed("{\"a\":1}\n{\"a\": }\n{\"never\":\"read\"}\n").await;
        let (delivered, Stopped::Rejected { line, problem }) = result.unwrap_err() else {
            panic!("rejected")
        };
        assert_eq!((delivered, line), (1, 2));
        assert!(problem.contains("at column 7"), "{problem}");
        assert!(!out.contains("never"));
    }

    #[tokio::test]
    async fn a_nul_character_is_refused_before_the_database_sees_it() {
        let (result, _) = feed("{\"id\":\"a\\u0000b\"}\n").await;
        assert!(matches!(
            result,
            Err((0, Stopped::Rejected { line: 1, .. }))
        ));
    }

    #[test]
    fn a_database_name_is_never_sql() {
        assert!(parse(&["--database", "workbook_05"]).is_ok());
        assert!(parse(&["--database", r#"x"; DROP DATABASE postgres; --"#]).is_err());
        assert!(parse(&["events.jsonl"]).is_err());
    }
}
