//! What a failed call of the code under test means, read from its SQLSTATE (or from the pool),
//! for every lesson's messages. Each lesson says, for the causes it expects, why that cause is
//! wrong there; any cause it does not name is worded as "anything else", with the SQLSTATE.

use sqlx::error::UnexpectedNullError;

use crate::words::sqlstate::code_of;

/// What a handler's error was, by its SQLSTATE (see [`meaning`](crate::words::sqlstate::meaning)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureCause {
    /// 40P01: two transactions waited on each other.
    Deadlock,
    /// 40001: a serialization failure, from an isolation level above read committed.
    Serialization,
    /// 55P03: a lock was not available and the statement gave up (NOWAIT, lock_timeout).
    LockNotAvailable,
    /// 25P02: a statement ran in a transaction an earlier error had aborted.
    TransactionAborted,
    /// 57014: the statement was cancelled (statement_timeout).
    Cancelled,
    /// No connection came free in the pool: the handler wanted a second one while holding one.
    PoolExhausted,
    /// No SQLSTATE: a query that expected a row found none (sqlx's `RowNotFound`).
    NoRow,
    /// No SQLSTATE: a column read as a value held NULL (sqlx's `UnexpectedNullError`).
    UnexpectedNull,
    /// Anything else: a typo in the SQL, a missing table, ...
    Other,
}

impl FailureCause {
    pub fn of(error: &sqlx::Error) -> FailureCause {
        match error {
            sqlx::Error::PoolTimedOut => FailureCause::PoolExhausted,
            sqlx::Error::RowNotFound => FailureCause::NoRow,
            sqlx::Error::ColumnDecode { source, .. } if source.is::<UnexpectedNullError>() => {
                FailureCause::UnexpectedNull
            }
            _ => FailureCause::of_code(code_of(error).as_deref()),
        }
    }

    /// The cause of an error that reached the test as text (an HTTP problem's `sqlstate` and
    /// `detail`): by its SQLSTATE, or, when it has none, by sqlx's own words for the two errors
    /// of the handler's side that have a meaning of their own.
    pub fn of_problem(code: Option<&str>, detail: &str) -> FailureCause {
        match FailureCause::of_code(code) {
            FailureCause::Other if code.is_none() && detail.contains(NO_ROW) => FailureCause::NoRow,
            FailureCause::Other if code.is_none() && detail.contains(UNEXPECTED_NULL) => {
                FailureCause::UnexpectedNull
            }
            cause => cause,
        }
    }

    /// The cause a SQLSTATE names, when only the code travelled (in an HTTP problem, say).
    pub fn of_code(code: Option<&str>) -> FailureCause {
        match code {
            Some("40P01") => FailureCause::Deadlock,
            Some("40001") => FailureCause::Serialization,
            Some("55P03") => FailureCause::LockNotAvailable,
            Some("25P02") => FailureCause::TransactionAborted,
            Some("57014") => FailureCause::Cancelled,
            _ => FailureCause::Other,
        }
    }
}

/// What sqlx 0.9 prints for `RowNotFound` and for a NULL decoded as a value (the tests below
/// hold it to that).
const NO_ROW: &str = "no rows returned by a query that expected to return at least one row";
const UNEXPECTED_NULL: &str = "unexpected null";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handlers_own_errors_are_read_from_the_error_and_from_its_words() {
        let null = sqlx::Error::ColumnDecode {
            index: "1".into(),
            source: Box::new(UnexpectedNullError),
        };
        assert_eq!(FailureCause::of(&null), FailureCause::UnexpectedNull);
        assert_eq!(
            FailureCause::of_problem(None, &null.to_string()),
            FailureCause::UnexpectedNull
        );
        let none = sqlx::Error::RowNotFound;
        assert_eq!(FailureCause::of(&none), FailureCause::NoRow);
        assert_eq!(
            FailureCause::of_problem(None, &none.to_string()),
            FailureCause::NoRow
        );
        assert_eq!(
            FailureCause::of_problem(Some("40001"), &none.to_string()),
            FailureCause::Serialization
        );
        assert_eq!(FailureCause::of_problem(None, "boom"), FailureCause::Other);
    }

    #[test]
    fn a_pool_that_timed_out_is_an_exhausted_pool() {
        assert_eq!(
            FailureCause::of(&sqlx::Error::PoolTimedOut),
            FailureCause::PoolExhausted
        );
    }
}
