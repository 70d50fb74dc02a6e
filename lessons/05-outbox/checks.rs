//! Lesson 05's subjects and fault test, as the checks run them.

use order_saga::ViolationKind;

// LESSON, the subjects, the tests as data, BREAK, probes and suite, as every saga lesson's checks
// write them. The exercise, as shipped: the status change commits, then the outbox row is written
// on its own.
crate::saga::lesson!("05", 5, exercise_05, solution_05);

/// A resolved order nobody is told about.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(kind, ViolationKind::ResolvedSilently { .. })
}

#[cfg(test)]
mod tests {
    //! The shipped exercise fails for the reason this lesson teaches, and passes the scenarios
    //! the lesson is not about. Its failing traces are snapshotted beside this file: the book
    //! shows them.

    use order_saga::{Mix, Violation, scenarios};

    use crate::intended::{Complaint, expect, passing, trace};

    #[tokio::test]
    async fn exercise_leaves_a_resolved_order_unannounced() -> Result<(), Complaint> {
        let result =
            super::play("a_delivery_that_dies_before_announcing_is_announced_after_all", super::exercise()).await;
        let why = "the outbox row is written after the commit";
        crate::snapshot!(exercise: "a_delivery_that_dies_before_announcing_is_announced_after_all",
            trace(expect(result, super::is_intended, why)?)?
        );
        Ok(())
    }

    /// Without a fault, lesson 05's exercise keeps the outbox invariant.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn exercise_passes_what_the_lesson_is_not_about() -> Result<(), Violation> {
        scenarios::redelivered_after_commit(super::exercise()).await?;
        super::play("a_delivery_that_dies_before_the_change_is_applied_by_the_redelivery", super::exercise()).await?;
        super::play("a_redelivery_after_a_cancelled_delivery_applies_the_event", super::exercise()).await?;
        scenarios::instalments_race_for_one_order(super::exercise()).await?;
        super::play("a_payment_for_another_order_does_not_wait", super::exercise()).await?;
        scenarios::barrier(super::exercise(), Mix::Mixed, 8).await
    }

    /// The solution's passing traces, which the chapter shows. Only the solution's: a student's
    /// correct handler may interleave differently (wait on another session) and must pass.
    #[tokio::test]
    async fn solution_traces_as_the_chapter_shows_them() -> Result<(), Complaint> {
        let trace = passing(super::play("a_delivery_that_dies_before_announcing_is_announced_after_all", super::solution()))
        .await?;
        crate::snapshot!(solution: "a_delivery_that_dies_before_announcing_is_announced_after_all", trace);
        let trace = passing(super::play("a_delivery_that_dies_before_the_change_is_applied_by_the_redelivery", super::solution()))
        .await?;
        crate::snapshot!(solution: "a_delivery_that_dies_before_the_change_is_applied_by_the_redelivery", trace);
        Ok(())
    }
}
