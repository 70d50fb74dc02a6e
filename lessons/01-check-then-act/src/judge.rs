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

/// The rule for one account, over what was observed of each of its events (in the spec's
/// order) and what their deliveries returned: [`judge`] for one event, however often it was
/// delivered; [`judge_neighbours`] for several; [`judge_unopened`] when the account does not
/// exist.
pub(crate) fn judge_account(
    observed: &[Observed],
    outcomes: &[Result<Outcome, sqlx::Error>],
    answers_lost: usize,
) -> Result<(), ViolationKind> {
    match observed {
        [first, ..] if !first.opened => judge_unopened(observed, outcomes),
        [one] => judge(*one, outcomes, answers_lost),
        several => judge_neighbours(several, outcomes),
    }
}

/// Several different events for one account, each delivered once (`observed`, one for each, in
/// the spec's order): none is a duplicate, so every delivery must credit and say so, each event
/// must be recorded once, and the balance must hold every credit. `outcomes` are what their
/// deliveries returned, bar those whose answer was lost.
pub(crate) fn judge_neighbours(
    observed: &[Observed],
    outcomes: &[Result<Outcome, sqlx::Error>],
) -> Result<(), ViolationKind> {
    let events = observed.len();
    for outcome in outcomes {
        match outcome {
            Err(error) => return Err(ViolationKind::Common(kit::Common::failed(error))),
            Ok(Outcome::Applied) => {}
            Ok(outcome) => {
                return Err(ViolationKind::OtherEventTakenForADuplicate {
                    outcome: *outcome,
                    events,
                });
            }
        }
    }
    let balance_cents = observed.first().map_or(0, |seen| seen.balance_cents);
    let expected_cents = observed.iter().map(|seen| seen.amount_cents).sum();
    if balance_cents != expected_cents || observed.iter().any(|seen| seen.records != 1) {
        return Err(ViolationKind::CreditLost {
            balance_cents,
            expected_cents,
            events,
        });
    }
    Ok(())
}

/// Events for an account that does not exist: nothing can be credited, so every delivery must
/// return an error, and none may leave its event recorded as applied.
pub(crate) fn judge_unopened(
    observed: &[Observed],
    outcomes: &[Result<Outcome, sqlx::Error>],
) -> Result<(), ViolationKind> {
    if let Some(Ok(outcome)) = outcomes.iter().find(|outcome| outcome.is_ok()) {
        return Err(ViolationKind::ErrorHidden { outcome: *outcome });
    }
    if observed.iter().any(|seen| seen.records > 0) {
        return Err(ViolationKind::RecordedWithoutEffect);
    }
    Ok(())
}
