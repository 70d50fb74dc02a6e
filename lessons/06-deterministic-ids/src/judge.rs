//! The one rule every scenario checks, per order: the card network charged once, the saga was
//! told under one id, and the deliveries' reports say so without calling a duplicate an error.

use kit::{Errors, Trace};

use crate::step::Observed;
use crate::{Delivery, Outcome, Violation, ViolationKind};

/// `answers_lost` counts the deliveries for the order whose COMMIT the server carried out but
/// whose answer never reached them (their results are not among `outcomes`): the payment's
/// announcement may be theirs, so no other delivery need claim it.
pub(crate) fn judge(
    observed: &Observed,
    outcomes: &[Result<Outcome, sqlx::Error>],
    answers_lost: usize,
) -> Result<(), ViolationKind> {
    let order_id = observed.order_id.clone();
    let charges = observed.charges.len();
    if charges > 1 {
        let mut keys: Vec<&str> = observed.charges.iter().map(|(k, _)| k.as_str()).collect();
        keys.sort_unstable();
        keys.dedup();
        return Err(ViolationKind::ChargedTwice {
            order_id,
            charges,
            keys: keys.len(),
        });
    }
    let ids = observed.distinct_ids();
    if ids.len() > 1 {
        return Err(ViolationKind::AnnouncedUnderTwoIds { order_id, ids });
    }
    let errors = Errors::of(outcomes);
    errors.failure().map_err(ViolationKind::Common)?;
    errors
        .reported()
        .map_err(|(errors, example)| ViolationKind::DuplicateSurfacedAsError { errors, example })?;
    match (charges, ids.len()) {
        // A record with no charge behind it: it committed before the network took the charge,
        // and the delivery died between the two.
        (0, 0) if observed.payments > 0 => {
            return Err(ViolationKind::RecordedWithoutACharge { order_id });
        }
        (0, 0) => return Err(ViolationKind::NeverPaid { order_id }),
        (_, 0) => return Err(ViolationKind::ChargedButNotAnnounced { order_id }),
        _ => {}
    }
    let applied = (outcomes.iter()).any(|outcome| matches!(outcome, Ok(Outcome::Applied)));
    if !applied && answers_lost == 0 {
        return Err(ViolationKind::NoDeliveryReportedApplied);
    }
    Ok(())
}

/// Judges one order's observation with the deliveries' `outcomes`, and words what it finds.
pub(crate) fn verdict(
    observed: &Observed,
    outcomes: &[Result<Outcome, sqlx::Error>],
    answers_lost: usize,
    during: Delivery,
    trace: Option<&Trace>,
) -> Result<(), Violation> {
    judge(observed, outcomes, answers_lost).map_err(Violation::caught(during, trace))
}
