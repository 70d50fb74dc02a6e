//! What the calls' errors say, by the rule every lesson with a key teaches: a unique violation
//! is a duplicate that lost its race to the key, anything else is a failure.

use crate::words::common::Common;
use crate::words::sqlstate::{describe_sqlx, is_unique_violation};

/// The errors some calls returned, in the order the calls were made.
pub struct Errors<'a>(Vec<&'a sqlx::Error>);

impl<'a> Errors<'a> {
    /// The errors among `outcomes`.
    pub fn of<T: 'a>(outcomes: impl IntoIterator<Item = &'a Result<T, sqlx::Error>>) -> Self {
        Errors(
            outcomes
                .into_iter()
                .filter_map(|o| o.as_ref().err())
                .collect(),
        )
    }

    /// The first error that is not a unique violation: a call that failed, told by its
    /// SQLSTATE.
    pub fn failure<O>(&self) -> Result<(), Common<O>> {
        match self.0.iter().find(|error| !is_unique_violation(error)) {
            Some(error) => Err(Common::failed(error)),
            None => Ok(()),
        }
    }

    /// Duplicates that lost their race and said so with an error, where the lesson's rule wants
    /// them to lose cleanly: how many, and the first of them described. Ask for
    /// [`Errors::failure`] first; this counts every error.
    pub fn reported(&self) -> Result<(), (usize, String)> {
        match self.0.first() {
            Some(example) => Err((self.0.len(), describe_sqlx(example))),
            None => Ok(()),
        }
    }
}
