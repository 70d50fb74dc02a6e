//! The rule every saga scenario checks, whatever the lesson: an order is resolved once, by the
//! event that reached it first, and the outbox says so exactly once; every delivered event is
//! recorded; and each delivery reports what it did.

use kit::{Errors, Trace};

use crate::orders::Observed;
use crate::{Delivery, Outcome, PaymentEvent, Violation, ViolationKind};

/// What the order must look like after the deliveries.
pub(crate) enum Expect {
    /// Resolved by one of these events (whichever got there first), announced once.
    ResolvedBy(Vec<PaymentEvent>),
    /// Still pending, with this much paid (instalments), and nothing announced.
    Pending { paid_cents: i64 },
}

/// One delivery of an event and what the handler returned for it.
pub(crate) type Delivered = (PaymentEvent, Result<Outcome, sqlx::Error>);

pub(crate) fn judge(
    expect: &Expect,
    observed: &Observed,
    delivered: &[Delivered],
) -> Result<(), ViolationKind> {
    if observed.outbox.len() > 1 {
        return Err(ViolationKind::ResolvedTwice {
            announcements: observed
                .outbox
                .iter()
                .map(|row| (row.kind.clone(), row.caused_by.clone()))
                .collect(),
            status: observed.status.clone(),
        });
    }
    let errors = Errors::of(delivered.iter().map(|(_, outcome)| outcome));
    errors.failure().map_err(ViolationKind::Common)?;
    let winner = check_state(expect, observed, delivered)?;
    errors
        .reported()
        .map_err(|(errors, example)| ViolationKind::DuplicateSurfacedAsError { errors, example })?;
    for id in distinct_ids(delivered) {
        if !observed.recorded.iter().any(|recorded| recorded == id) {
            return Err(ViolationKind::NotRecorded {
                event_id: id.to_string(),
            });
        }
        check_reports(id, winner, delivered)?;
    }
    Ok(())
}

/// The order's status, what was paid and what the outbox says. Returns the id of the event that
/// resolved the order, if it was to be resolved.
fn check_state<'a>(
    expect: &'a Expect,
    observed: &Observed,
    delivered: &[Delivered],
) -> Result<Option<&'a str>, ViolationKind> {
    let status = observed.status.clone();
    let row = observed.outbox.first();
    match expect {
        Expect::ResolvedBy(candidates) => {
            let Some(row) = row else {
                if status != "pending" {
                    return Err(ViolationKind::ResolvedSilently { status });
                }
                return match distinct_ids(delivered)
                    .find(|id| observed.recorded.iter().any(|r| r == id))
                {
                    Some(id) => Err(ViolationKind::LostEvent {
                        event_id: id.to_string(),
                        // "Already applied" is what a redelivery rightly answers to a record that
                        // was committed; "already resolved" for a pending order is never right.
                        gave_up: delivered.iter().any(|(event, outcome)| {
                            event.id() == id && matches!(outcome, Ok(Outcome::OrderAlreadyResolved))
                        }),
                    }),
                    None => Err(ViolationKind::NeverApplied {
                        handled_reports: delivered
                            .iter()
                            .filter(|(_, outcome)| {
                                matches!(
                                    outcome,
                                    Ok(Outcome::AlreadyApplied | Outcome::OrderAlreadyResolved)
                                )
                            })
                            .count(),
                    }),
                };
            };
            if row.kind != announcement_of(&status) {
                return Err(ViolationKind::AnnouncedButNotSo {
                    announced: row.kind.clone(),
                    status,
                });
            }
            match candidates.iter().find(|event| event.id() == row.caused_by) {
                Some(event) => Ok(Some(event.id())),
                None => Err(ViolationKind::ResolvedByWrongEvent {
                    caused_by: row.caused_by.clone(),
                    expected: candidates
                        .iter()
                        .map(|e| e.id())
                        .collect::<Vec<_>>()
                        .join(" or "),
                }),
            }
        }
        Expect::Pending { paid_cents } => {
            if observed.paid_cents != *paid_cents || status != "pending" {
                return Err(ViolationKind::PaidWrong {
                    paid_cents: observed.paid_cents,
                    expected_cents: *paid_cents,
                    status,
                    gave_up: (delivered.iter())
                        .any(|(_, outcome)| matches!(outcome, Ok(Outcome::OrderAlreadyResolved))),
                });
            }
            if let Some(row) = row {
                return Err(ViolationKind::AnnouncedButNotSo {
                    announced: row.kind.clone(),
                    status,
                });
            }
            Ok(None)
        }
    }
}

/// Exactly one delivery of each event id decides about it; every other delivery of the same
/// id is a redelivery and says so.
fn check_reports(
    id: &str,
    winner: Option<&str>,
    delivered: &[Delivered],
) -> Result<(), ViolationKind> {
    let deciders: Vec<Outcome> = delivered
        .iter()
        .filter(|(event, _)| event.id() == id)
        .filter_map(|(_, outcome)| outcome.as_ref().ok().copied())
        .filter(|outcome| *outcome != Outcome::AlreadyApplied)
        .collect();
    let expected = match winner {
        Some(winner) if winner != id => Outcome::OrderAlreadyResolved,
        _ => Outcome::Applied,
    };
    let about_resolved = expected == Outcome::OrderAlreadyResolved
        || deciders.contains(&Outcome::OrderAlreadyResolved);
    let misreported = |detail| {
        Err(ViolationKind::MisreportedOutcome {
            detail,
            about_resolved,
        })
    };
    match deciders.as_slice() {
        [decided] if *decided == expected => Ok(()),
        [decided] => misreported(format!(
            "{id} was reported as {decided:?}, where {expected:?} was due"
        )),
        [] => misreported(format!(
            "every delivery of {id} reported AlreadyApplied; the one that handled it should \
             have reported {expected:?}"
        )),
        many => misreported(format!(
            "{} deliveries of {id} reported {many:?}; only one delivery handles an event, and \
             the others are redeliveries (AlreadyApplied)",
            many.len()
        )),
    }
}

fn distinct_ids(delivered: &[Delivered]) -> impl Iterator<Item = &str> {
    let mut ids: Vec<&str> = delivered.iter().map(|(event, _)| event.id()).collect();
    ids.sort_unstable();
    ids.dedup();
    ids.into_iter()
}

fn announcement_of(status: &str) -> &'static str {
    match status {
        "confirmed" => "order.confirmed",
        "cancelled" => "order.cancelled",
        _ => "(nothing: the order is pending)",
    }
}

/// Judges the deliveries, and words what it finds for the scenario.
pub(crate) fn verdict(
    expect: &Expect,
    observed: &Observed,
    delivered: &[Delivered],
    during: Delivery,
    trace: Option<&Trace>,
) -> Result<(), Violation> {
    judge(expect, observed, delivered).map_err(Violation::caught(during, trace))
}
