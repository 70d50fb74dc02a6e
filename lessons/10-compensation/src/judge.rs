//! The one rule every scenario checks, per order: the reservation is settled once, by the
//! first event that reached it; a release returns its units once and is announced once; and
//! the deliveries' reports say so, without calling a repeat an error.

use kit::{Errors, Trace};

use crate::inventory::Observed;
use crate::{Delivery, Outcome, Violation, ViolationKind};

pub(crate) fn judge(
    observed: &Observed,
    outcomes: &[Result<Outcome, sqlx::Error>],
) -> Result<(), ViolationKind> {
    let order_id = observed.order_id.clone();
    let reported = |wanted: Outcome| {
        (outcomes.iter())
            .filter(|outcome| matches!(outcome, Ok(o) if *o == wanted))
            .count()
    };
    // What the stock shows first: units returned more often than they were reserved.
    if observed.returned > observed.quantity {
        return Err(ViolationKind::ReleasedTwice {
            order_id,
            quantity: observed.quantity,
            returned: observed.returned,
            releases: reported(Outcome::Released),
        });
    }
    // Sold and put back: the units ship to the customer *and* count as available.
    let consumed_but_returned =
        observed.status == "consumed" && (observed.returned > 0 || !observed.announced.is_empty());
    if consumed_but_returned || (reported(Outcome::Consumed) > 0 && observed.status == "released") {
        return Err(ViolationKind::SettledBothWays {
            order_id,
            status: observed.status.clone(),
            returned: observed.returned,
        });
    }
    let errors = Errors::of(outcomes);
    errors.failure().map_err(ViolationKind::Common)?;
    errors
        .reported()
        .map_err(|(errors, example)| ViolationKind::RefusedByAKey { errors, example })?;
    let settled_by = match observed.status.as_str() {
        "held" => {
            return Err(ViolationKind::NeverSettled {
                order_id,
                returned: observed.returned,
            });
        }
        "released" if observed.returned != observed.quantity => {
            return Err(ViolationKind::StateDisagrees {
                summary: observed.summary(),
            });
        }
        "released" => match observed.announced.len() {
            0 => return Err(ViolationKind::ReleasedButNotAnnounced { order_id }),
            1 => Outcome::Released,
            _ => {
                return Err(ViolationKind::AnnouncedTwice {
                    order_id,
                    ids: observed.announced.clone(),
                });
            }
        },
        _ => Outcome::Consumed,
    };
    // Exactly one delivery did the work, and said so; every other one said it changed nothing.
    let deciders = reported(Outcome::Released) + reported(Outcome::Consumed);
    if deciders != 1 || reported(settled_by) != 1 {
        return Err(ViolationKind::Misreported {
            status: observed.status.clone(),
            released: reported(Outcome::Released),
            consumed: reported(Outcome::Consumed),
        });
    }
    Ok(())
}

/// Judges one order's observation with the deliveries' `outcomes`, and words what it finds.
pub(crate) fn verdict(
    observed: &Observed,
    outcomes: &[Result<Outcome, sqlx::Error>],
    during: Delivery,
    trace: Option<&Trace>,
) -> Result<(), Violation> {
    judge(observed, outcomes).map_err(Violation::caught(during, trace))
}
