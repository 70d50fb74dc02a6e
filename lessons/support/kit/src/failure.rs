//! What a failed call of the code under test means, read from its SQLSTATE (or from the pool),
//! for every lesson's messages. Each lesson says, for the causes it expects, why that cause is
//! wrong there; any cause it does not name is worded as "anything else", with the SQLSTATE.

use crate::code_of;

/// What a handler's error was, by its SQLSTATE (see [`crate::meaning`]).
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
    /// Anything else: a typo in the SQL, a missing table, ...
    Other,
}

impl FailureCause {
    pub fn of(error: &sqlx::Error) -> FailureCause {
        if matches!(error, sqlx::Error::PoolTimedOut) {
            return FailureCause::PoolExhausted;
        }
        FailureCause::of_code(code_of(error).as_deref())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_that_timed_out_is_an_exhausted_pool() {
        assert_eq!(
            FailureCause::of(&sqlx::Error::PoolTimedOut),
            FailureCause::PoolExhausted
        );
        assert_eq!(
            FailureCause::of(&sqlx::Error::RowNotFound),
            FailureCause::Other
        );
    }
}
