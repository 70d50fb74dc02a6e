//! The one rule every scenario checks: the effect happened once, one delivery says it did
//! it, and the others report a duplicate without calling it an error.

use crate::{Outcome, ViolationKind};

pub(crate) fn judge(
    credits: i64,
    outcomes: &[Result<Outcome, sqlx::Error>],
) -> Result<(), ViolationKind> {
    let duplicates: Vec<&sqlx::Error> = outcomes
        .iter()
        .filter_map(|outcome| outcome.as_ref().err())
        .filter(|error| is_unique_violation(error))
        .collect();
    let other_error = outcomes
        .iter()
        .filter_map(|outcome| outcome.as_ref().err())
        .find(|error| !is_unique_violation(error));
    let applied_reports = outcomes
        .iter()
        .filter(|outcome| matches!(outcome, Ok(Outcome::Applied)))
        .count();

    if credits > 1 {
        return Err(ViolationKind::CreditedMoreThanOnce { credits });
    }
    if let Some(error) = other_error {
        return Err(ViolationKind::HandlerFailed {
            error: error.to_string(),
        });
    }
    if let Some(example) = duplicates.first() {
        return Err(ViolationKind::DuplicateSurfacedAsError {
            errors: duplicates.len(),
            example: example.to_string(),
        });
    }
    if credits == 0 {
        return Err(ViolationKind::NeverCredited);
    }
    if applied_reports != 1 {
        return Err(ViolationKind::MisreportedOutcome { applied_reports });
    }
    Ok(())
}

fn is_unique_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|error| error.is_unique_violation())
}
