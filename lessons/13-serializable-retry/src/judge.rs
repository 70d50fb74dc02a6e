//! The one rule every scenario checks: the shared limit holds; every authorization is decided
//! once, by the delivery that says so; a transaction the database aborted for a conflict
//! (40001, 40P01) is run again, a bounded number of times, and no other error is; and the
//! attempts a delivery reports are the attempts the database saw.

use kit::{Common, Trace, code_of};

use crate::cards::Observed;
use crate::violation::MOST_ATTEMPTS;
use crate::{Authorization, Delivery, Handled, Outcome, Violation, ViolationKind};

/// What a scenario expects of some of its events, besides the rule.
#[derive(Debug, Clone, Copy, Default)]
pub struct Expect<'a> {
    /// An event every attempt of which the test fails with 40001: giving up on it, after more
    /// than one attempt and at most [`MOST_ATTEMPTS`], is right.
    pub gives_up: Option<&'a str>,
    /// An event that no attempt can decide (its card does not exist): its error is right,
    /// after one attempt.
    pub refused: Option<&'a str>,
    /// An event whose first delivery never heard the server's answer to its COMMIT (its
    /// connection cut after the server committed): its decision may be recorded with no
    /// delivery claiming it.
    pub answer_lost: Option<&'a str>,
}

/// One delivery: the event it carried, and what it returned.
pub type Delivered = (Authorization, Result<Handled, sqlx::Error>);

pub(crate) fn judge(
    observed: &Observed,
    delivered: &[Delivered],
    attempts: &[(String, u64)],
    expect: Expect<'_>,
) -> Result<(), ViolationKind> {
    if observed.total_spent() > observed.limit {
        return Err(ViolationKind::OverLimit {
            customer_id: observed.customer_id.as_str().into(),
            spent: observed.total_spent(),
            limit: observed.limit,
            summary: observed.summary().into(),
        });
    }
    for (event, seen) in attempts {
        let results: Vec<&Result<Handled, sqlx::Error>> = (delivered.iter())
            .filter(|(e, _)| e.id() == event)
            .map(|(_, result)| result)
            .collect();
        judge_event(observed, event, *seen, &results, expect)?;
    }
    for (card, spent) in &observed.spent {
        let approved: i64 = (observed.decisions.iter())
            .filter(|(_, c, _, decision)| c == card && decision == "approved")
            .map(|(_, _, cents, _)| cents)
            .sum();
        if approved != *spent {
            return Err(ViolationKind::StateDisagrees {
                summary: observed.summary().into(),
            });
        }
    }
    Ok(())
}

fn judge_event(
    observed: &Observed,
    event: &str,
    seen: u64,
    results: &[&Result<Handled, sqlx::Error>],
    expect: Expect<'_>,
) -> Result<(), ViolationKind> {
    if seen > MOST_ATTEMPTS {
        return Err(ViolationKind::Unbounded {
            event: event.into(),
            attempts: seen,
        });
    }
    for result in results {
        let Err(error) = result else { continue };
        let code = code_of(error);
        match code.as_deref() {
            Some("40001" | "40P01") if expect.gives_up == Some(event) && seen > 1 => {}
            Some("40001" | "40P01") => {
                let at_commit = (error.as_database_error())
                    .and_then(|e| e.try_downcast_ref::<sqlx::postgres::PgDatabaseError>())
                    .and_then(|e| e.detail())
                    .is_some_and(|detail| detail.contains("during commit attempt"));
                return Err(ViolationKind::NotRetried {
                    event: event.into(),
                    error: error_text(error).into(),
                    at_commit,
                    attempts: seen,
                });
            }
            Some("23505") => {
                return Err(ViolationKind::DuplicateAsAnError {
                    event: event.into(),
                    error: error_text(error).into(),
                });
            }
            _ if expect.refused == Some(event) && seen > 1 => {
                return Err(ViolationKind::RetriedAPermanentError {
                    event: event.into(),
                    error: error_text(error).into(),
                    attempts: seen,
                });
            }
            _ if expect.refused == Some(event) => {}
            _ => return Err(ViolationKind::Common(Common::failed(error))),
        }
    }
    let handled: Vec<&Handled> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    let recorded = observed.decision_of(event);
    let deciders: Vec<&&Handled> = (handled.iter())
        .filter(|h| h.outcome != Outcome::Duplicate)
        .collect();
    let agrees = match (recorded, deciders.as_slice()) {
        (None, []) => handled.is_empty(),
        (Some(_), []) => expect.answer_lost == Some(event),
        (Some("approved"), [one]) => one.outcome == Outcome::Approved,
        (Some("declined"), [one]) => one.outcome == Outcome::Declined,
        _ => false,
    };
    if !agrees || (expect.gives_up == Some(event) && !handled.is_empty()) {
        return Err(ViolationKind::Misreported {
            event: event.into(),
            recorded: recorded.map(Into::into),
            reported: (results.iter())
                .map(|r| match r {
                    Ok(h) => format!("{:?} after {} attempt(s)", h.outcome, h.attempts),
                    Err(_) => "an error".to_string(),
                })
                .collect(),
        });
    }
    if handled.len() == results.len() {
        let reported: u64 = handled.iter().map(|h| u64::from(h.attempts)).sum();
        if reported != seen {
            return Err(ViolationKind::AttemptsMisreported {
                event: event.into(),
                reported,
                observed: seen,
            });
        }
    }
    Ok(())
}

/// A database error as the server gave it: message, SQLSTATE and detail. Not the kit's
/// meaning of the code, which would tell a student what to do with a 40001: here that is the
/// lesson.
fn error_text(error: &sqlx::Error) -> String {
    match kit::DbError::of_sqlx(error) {
        Some(db) => match db.detail {
            Some(detail) => format!("{} (SQLSTATE {})\n  detail: {detail}", db.message, db.code),
            None => format!("{} (SQLSTATE {})", db.message, db.code),
        },
        None => kit::describe_sqlx(error),
    }
}

/// Judges what the deliveries left, and words what it finds.
pub(crate) fn verdict(
    observed: &Observed,
    delivered: &[Delivered],
    attempts: &[(String, u64)],
    expect: Expect<'_>,
    during: Delivery,
    trace: Option<&Trace>,
) -> Result<(), Violation> {
    judge(observed, delivered, attempts, expect).map_err(Violation::caught(during, trace))
}
