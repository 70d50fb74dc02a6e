//! Lesson 09's subjects, race and fault tests, as the checks run them.

use retention::{Delivery, Handler, Subject, ViolationKind, scenarios, subject};

crate::lesson_checks::lesson!(
    "09", retention,
    rounds: |_| scenarios::BARRIER_DAYS,
    round: |during| match *during {
        Delivery::Barrier { round, .. } => round,
        Delivery::Story(_) => 1,
    },
    schema(crate_migrations): [retention::__private::BASE_MIGRATIONS, crate_migrations],
);

/// The crates' folders, for their migrations: the exercise's as shipped (the runner's copy).
const EXERCISE_DIR: &str = crate::EXERCISE_09_DIR;
const SOLUTION_DIR: &str = crate::SOLUTION_09_DIR;

/// As shipped: "keep the newest 1,000 ids" in one statement, on a table keyed by the day each
/// copy arrived.
pub fn exercise() -> Subject<impl Handler> {
    subject!(crate::exercise_09::prune, EXERCISE_DIR)
}

pub fn solution() -> Subject<impl Handler> {
    subject!(crate::solution_09::prune, SOLUTION_DIR)
}

/// The half-way state most students pass through: the prune fixed, the table still keyed by
/// the day a copy arrived.
pub fn prune_only() -> Subject<impl Handler> {
    subject!(crate::solution_09::prune, EXERCISE_DIR)
}

/// The reasons the shipped exercise must fail for: an event applied twice (its row pruned
/// inside the window, or a copy on another day let in by the key), or a table that never
/// shrinks. A setup error, a compile error or a timeout is never it.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(
        kind,
        ViolationKind::ForgotTooEarly(_)
            | ViolationKind::KeyAdmitsTwice { .. }
            | ViolationKind::KeptTooLong { .. }
    )
}

#[cfg(test)]
mod tests {
    //! The shipped exercise forgets an event inside its window, lets a copy in after midnight,
    //! and never shrinks a backlog; a sequential test cannot tell it from the fix; fixing the
    //! prune alone still lets the midnight copy in; the solution passes everything. The failing
    //! traces are snapshotted beside this file: the book shows them.

    use retention::{Violation, ViolationKind, scenarios};

    use crate::intended::{Complaint, SHIPPED, expect, passing};

    const WHY: &str = "a count of rows is no clock, and the table's key includes the day a copy \
                       arrived";

    #[tokio::test]
    async fn exercise_forgets_an_event_inside_its_window() -> Result<(), Complaint> {
        let result =
            super::play("a_copy_at_the_end_of_the_window_changes_nothing", super::exercise()).await;
        let violation = expect(result, super::is_intended, WHY)?;
        crate::snapshot!(exercise: "a_copy_at_the_end_of_the_window_changes_nothing", violation.to_string());
        Ok(())
    }

    #[tokio::test]
    async fn exercise_lets_a_copy_in_after_midnight() -> Result<(), Complaint> {
        let result = super::play("a_copy_after_midnight_changes_nothing", super::exercise()).await;
        let violation = expect(result, super::is_intended, WHY)?;
        crate::snapshot!(exercise: "a_copy_after_midnight_changes_nothing", violation.to_string());
        Ok(())
    }

    #[tokio::test]
    async fn exercise_keeps_a_backlog() -> Result<(), Complaint> {
        let result = scenarios::the_backlog_is_pruned_in_bounded_batches(super::exercise()).await;
        expect(result, super::is_intended, WHY).map(drop)
    }

    /// The chapter's first point: the sequential test cannot tell the broken prune from the fix.
    #[tokio::test]
    async fn exercise_passes_what_the_lesson_is_not_about() -> Result<(), Violation> {
        scenarios::a_copy_after_a_prune_is_recognised(super::exercise()).await?;
        scenarios::a_late_event_is_kept_for_the_window(super::exercise()).await
    }

    /// The half-way state: the prune is right, and a copy after midnight still gets in.
    #[tokio::test]
    async fn with_only_the_prune_fixed_a_copy_after_midnight_gets_in() -> Result<(), Complaint> {
        scenarios::the_backlog_is_pruned_in_bounded_batches(super::prune_only())
            .await
            .map_err(|v| Complaint(format!("with the prune fixed, expected a pass: {v}")))?;
        match scenarios::a_copy_after_midnight_is_recognised(super::prune_only()).await {
            Err(Violation {
                kind: ViolationKind::KeyAdmitsTwice { .. },
                ..
            }) => Ok(()),
            Err(other) => Err(Complaint(format!(
                "with only the prune fixed, expected the key to admit the copy; got: {other}"
            ))),
            Ok(()) => Err(Complaint(format!(
                "with only the prune fixed, the copy after midnight was recognised. {SHIPPED}"
            ))),
        }
    }

    /// The solution's passing traces, which the chapter shows. Only the solution's: a student's
    /// correct prune may interleave differently and must pass.
    #[tokio::test]
    async fn solution_traces_as_the_chapter_shows_them() -> Result<(), Complaint> {
        let trace = passing(super::play("the_prune_does_not_wait_for_a_delivery", super::solution()))
        .await?;
        crate::snapshot!(solution: "the_prune_does_not_wait_for_a_delivery", trace);
        Ok(())
    }
}
