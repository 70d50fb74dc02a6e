//! The one rule every scenario checks: the effect happened once, the event is recorded once,
//! one delivery says it did it (unless the answer to its COMMIT was lost), and the others report a duplicate without calling it an error.

use kit::Errors;

use crate::ledger::Observed;
use crate::{Outcome, ViolationKind};

/// `answers_lost` counts the deliveries whose COMMIT the server carried out but whose answer never
/// reached them (their results are not among `outcomes`): the credit may be theirs, so no other
/// delivery need claim it.
pub(crate) fn judge(
    observed: Observed,
    outcomes: &[Result<Outcome, sqlx::Error>],
    answers_lost: usize,
) -> Result<(), ViolationKind> {
    let Some(credits) = observed.credits() else {
        return Err(ViolationKind::WrongAmount {
            balance_cents: observed.balance_cents,
            amount_cents: observed.amount_cents,
        });
    };
    let records = observed.records;
    if credits > 1 && records <= 1 {
        return Err(ViolationKind::CreditedDespiteOneRecord { credits });
    }
    if credits > 1 {
        return Err(ViolationKind::CreditedMoreThanOnce { credits });
    }
    let errors = Errors::of(outcomes);
    errors.failure().map_err(ViolationKind::Common)?;
    errors
        .reported()
        .map_err(|(errors, example)| ViolationKind::DuplicateSurfacedAsError { errors, example })?;
    let applied_reports = outcomes
        .iter()
        .filter(|outcome| matches!(outcome, Ok(Outcome::Applied)))
        .count();
    if credits == 0 && applied_reports > 0 {
        return Err(ViolationKind::AppliedButNothingCommitted { applied_reports });
    }
    if credits == 0 {
        return Err(ViolationKind::NeverCredited);
    }
    if records == 0 {
        return Err(ViolationKind::CreditedButNotRecorded);
    }
    if applied_reports > 1 || (applied_reports == 0 && answers_lost == 0) {
        return Err(ViolationKind::MisreportedOutcome { applied_reports });
    }
    Ok(())
}
