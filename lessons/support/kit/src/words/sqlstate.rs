//! What a database error means, read from its SQLSTATE: the one place that turns an error of
//! either client (sqlx for the code under test, tokio-postgres for the tests' own sessions)
//! into words. PostgreSQL's message, detail and hint are kept; its source location ("at line
//! 1147" of some C file) never reaches a student.

use std::fmt;

/// A database error, reduced to what a person can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbError {
    pub code: String,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
}

impl DbError {
    /// The server's error inside a sqlx error, if it is one.
    pub fn of_sqlx(error: &sqlx::Error) -> Option<DbError> {
        let db = error.as_database_error()?;
        let pg = db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>();
        Some(DbError {
            code: db.code().map(|c| c.into_owned()).unwrap_or_default(),
            message: db.message().to_string(),
            detail: pg.and_then(|e| e.detail()).map(str::to_string),
            hint: pg.and_then(|e| e.hint()).map(str::to_string),
        })
    }

    /// The server's error inside a tokio-postgres error, if it is one.
    pub fn of_postgres(error: &tokio_postgres::Error) -> Option<DbError> {
        let db = error.as_db_error()?;
        Some(DbError {
            code: db.code().code().to_string(),
            message: db.message().to_string(),
            detail: db.detail().map(str::to_string),
            hint: db.hint().map(str::to_string),
        })
    }

    /// What the code means for the code that got it, if it is one the workbook knows.
    pub fn meaning(&self) -> Option<&'static str> {
        meaning(&self.code)
    }
}

/// "message (SQLSTATE code: meaning)", then the server's detail and hint, if any.
impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (SQLSTATE {}", self.message, self.code)?;
        match self.meaning() {
            Some(meaning) => write!(f, ": {meaning})")?,
            None => write!(f, ")")?,
        }
        if let Some(detail) = &self.detail {
            write!(f, "\n  detail: {detail}")?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

/// What each SQLSTATE the workbook's code can meet means for it. The classes are PostgreSQL's
/// (appendix A of its manual); the words are about what happened to the session.
pub fn meaning(code: &str) -> Option<&'static str> {
    Some(match code {
        "23505" => "a row with this key already exists: a unique index or primary key refused it",
        "23502" => "a NOT NULL column was given no value",
        "23503" => "a foreign key refused the row: the row it points to does not exist",
        "23514" => "a CHECK constraint refused the row",
        "40001" => {
            "serialization failure: under REPEATABLE READ or SERIALIZABLE, the database aborted \
             this transaction because a concurrent one changed what it read; such a transaction \
             must be retried from the start"
        }
        "40P01" => {
            "deadlock: two transactions each waited for a lock the other held, and the database \
             aborted this one to break the cycle"
        }
        "55P03" => {
            "lock not available: the statement gave up instead of waiting for a lock (NOWAIT, or \
             lock_timeout ran out)"
        }
        "25P02" => {
            "the transaction had already failed: after an error, every statement in the same \
             transaction is refused until it is rolled back"
        }
        "57014" => "the statement was cancelled (statement_timeout, or a cancel request)",
        "57P01" => {
            "the session was terminated (pg_terminate_backend, or the server shutting down): \
             its open transaction was rolled back"
        }
        "53300" => {
            "no connection slots left: the server's max_connections, or a CONNECTION LIMIT of \
             the role or the database, is reached; close other sessions or raise the limit"
        }
        "42P01" => {
            "a table the statement names does not exist: a migration that drops or renames a \
             table the lesson uses would cause this"
        }
        "42703" => {
            "a column the statement names does not exist: a migration that drops or renames a \
             column the lesson uses would cause this"
        }
        "42501" => {
            "permission denied: the role lacks a privilege, for instance on the tables of a \
             template database (wb_template_…) that another role built on the same server"
        }
        "42601" => "syntax error in the SQL",
        "3D000" => "the database does not exist",
        "28P01" => "password authentication failed: check the user and password in the URL",
        "28000" => "the server refused this role (pg_hba.conf has no entry that lets it in)",
        "42P04" => "a database with this name already exists",
        _ => return None,
    })
}

/// The SQLSTATE of a sqlx error, if the server sent one.
pub fn code_of(error: &sqlx::Error) -> Option<String> {
    error
        .as_database_error()
        .and_then(|e| e.code())
        .map(|code| code.into_owned())
}

/// 23505: a unique index or primary key refused the row. For a dedupe record, "a duplicate".
pub fn is_unique_violation(error: &sqlx::Error) -> bool {
    code_of(error).as_deref() == Some("23505")
}

/// How a trace shows what a delivery returned: the outcome, or the error by its SQLSTATE and
/// meaning ("error 23505: a row with this key already exists …").
pub fn describe_outcome<T: std::fmt::Debug>(outcome: &Result<T, sqlx::Error>) -> String {
    match outcome {
        Ok(outcome) => format!("{outcome:?}"),
        Err(error) => match code_of(error) {
            Some(code) if code == "23505" => "error (unique violation, 23505)".into(),
            Some(code) => match meaning(&code) {
                Some(meaning) => format!("error (SQLSTATE {code}: {})", short(meaning)),
                None => format!("error (SQLSTATE {code})"),
            },
            None if matches!(error, sqlx::Error::Io(_)) => "error (its connection was lost)".into(),
            None => "error".into(),
        },
    }
}

/// A meaning's first clause, for one line of a trace.
fn short(meaning: &str) -> &str {
    meaning
        .split([':', ';', '('])
        .next()
        .unwrap_or(meaning)
        .trim()
}

/// A sqlx error in words: the server's error by its SQLSTATE, or sqlx's own words for the
/// rest (a pool timeout, an I/O error).
pub fn describe_sqlx(error: &sqlx::Error) -> String {
    DbError::of_sqlx(error).map_or_else(|| error.to_string(), |db| db.to_string())
}

/// A tokio-postgres error in words: the server's error by its SQLSTATE, or the client's own
/// words with their cause (its Display alone says only "db error" or "error connecting").
pub fn describe_postgres(error: &tokio_postgres::Error) -> String {
    if let Some(db) = DbError::of_postgres(error) {
        return db.to_string();
    }
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_the_workbook_names_has_a_meaning() {
        for code in [
            "23505", "40001", "40P01", "55P03", "25P02", "57014", "57P01", "53300",
        ] {
            assert!(meaning(code).is_some(), "{code}");
        }
        assert_eq!(meaning("XX000"), None);
    }

    #[test]
    fn the_display_has_the_code_its_meaning_and_the_servers_detail() {
        let error = DbError {
            code: "42P01".into(),
            message: "relation \"accounts\" does not exist".into(),
            detail: None,
            hint: Some("check the name".into()),
        };
        let text = error.to_string();
        assert!(
            text.starts_with("relation \"accounts\" does not exist (SQLSTATE 42P01: a table"),
            "{text}"
        );
        assert!(text.ends_with("\n  hint: check the name"), "{text}");
    }
}
