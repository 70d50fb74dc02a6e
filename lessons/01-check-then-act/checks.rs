//! Lesson 01's subjects and race tests, as the checks run them.

use check_then_act::{Delivery, Handler, Subject, ViolationKind, subject};

crate::lesson_checks::lesson!(
    "01", check_then_act,
    rounds: |_| 1,
    round: |during| match *during {
        Delivery::Released(round) => round.round,
        _ => 1,
    },
    schema(crate_migrations): [check_then_act::__private::BASE_MIGRATIONS, crate_migrations],
);

/// The crates' folders, for their migrations: the exercise's as shipped (the runner's copy).
const EXERCISE_DIR: &str = crate::EXERCISE_01_DIR;
const SOLUTION_DIR: &str = crate::SOLUTION_01_DIR;

/// The handler and schema as shipped to students: check-then-act, no key.
pub fn exercise() -> Subject<impl Handler> {
    subject!(crate::exercise_01::apply_credit, EXERCISE_DIR)
}

pub fn solution() -> Subject<impl Handler> {
    subject!(crate::solution_01::apply_credit, SOLUTION_DIR)
}

/// The half-way state most students pass through: the key is added (the solution's schema),
/// the handler is unchanged, so the unique violation reaches the caller as an error.
pub fn key_only() -> Subject<impl Handler> {
    subject!(crate::exercise_01::apply_credit, SOLUTION_DIR)
}

/// The reason the shipped exercise must fail for: the double credit itself. A setup error, a
/// compile error or a timeout is never it.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(kind, ViolationKind::CreditedMoreThanOnce { .. })
}

crate::breaking::breakable!("01", lesson check_then_act::Lesson);

#[cfg(test)]
mod tests {
    //! The shipped exercise fails by double-crediting, every time, and for no other reason (the
    //! barrier's sizes too: `specs/released.spec` expects it, and the specs' check holds it); a
    //! sequential test cannot tell it from the fix; the half-way state (the key, but 23505 not
    //! handled) fails as the chapter says; the solution passes everything. The failing traces
    //! are snapshotted beside this file: the book shows them.

    use check_then_act::{Violation, ViolationKind};

    use crate::intended::{Complaint, SHIPPED, expect, passing, trace};

    const WHY: &str =
        "the check and the write are two statements, and nothing refuses a second row";

    #[tokio::test]
    async fn exercise_double_credits_under_the_forced_race() -> Result<(), Complaint> {
        let result = super::play("a_delivery_racing_an_uncommitted_one_changes_nothing", super::exercise()).await;
        crate::snapshot!(exercise: "a_delivery_racing_an_uncommitted_one_changes_nothing",
            trace(expect(result, super::is_intended, WHY)?)?
        );
        Ok(())
    }

    /// The chapter's point: the sequential test cannot tell the broken handler from the fix.
    #[tokio::test]
    async fn exercise_passes_the_sequential_test() -> Result<(), Violation> {
        // Nor does it fail two different events for one account, a failed delivery, a duplicate
        // that gives up, or an event for another account: their specs say so (`expect exercise
        // holds`), and the maintainers' check of every spec holds them to it.
        super::play("a_redelivery_after_the_first_changes_nothing", super::exercise()).await
    }

    #[tokio::test]
    async fn with_only_the_key_the_duplicate_surfaces_as_an_error() -> Result<(), Complaint> {
        match super::play("a_delivery_racing_an_uncommitted_one_changes_nothing", super::key_only()).await {
            Err(Violation {
                kind: ViolationKind::DuplicateSurfacedAsError { .. },
                trace: Some(trace),
                ..
            }) => {
                crate::snapshot!(key_only: "a_delivery_racing_an_uncommitted_one_changes_nothing",
                    crate::intended::Traced::of(&trace)
                );
                Ok(())
            }
            Err(other) => Err(Complaint(format!(
                "with the key but no 23505 handling, expected the duplicate to surface as an \
                 error; got: {other}"
            ))),
            Ok(()) => Err(Complaint(format!(
                "with the key but no 23505 handling, the forced interleaving passed. {SHIPPED}"
            ))),
        }
    }

    /// The solution's passing traces, which the chapter shows. Only the solution's: a student's
    /// correct handler may interleave differently (wait on another session) and must pass.
    #[tokio::test]
    async fn solution_traces_as_the_chapter_shows_them() -> Result<(), Complaint> {
        let trace = passing(super::play("a_delivery_racing_an_uncommitted_one_changes_nothing", super::solution())).await?;
        crate::snapshot!(solution: "a_delivery_racing_an_uncommitted_one_changes_nothing", trace);
        Ok(())
    }
}
