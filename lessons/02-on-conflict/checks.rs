//! Lesson 02's subjects and race tests, as the checks run them.

use order_saga::ViolationKind;

// LESSON, the subjects, the tests as data, BREAK, probes and suite, as every saga lesson's checks
// write them. The exercise, as shipped: a pre-check decides, and the insert's answer is ignored.
crate::saga::lesson!("02", 2, exercise_02, solution_02);

/// One event, announced more than once.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(kind, ViolationKind::ResolvedTwice { .. })
}

#[cfg(test)]
mod tests {
    //! The shipped exercise fails for the reason this lesson teaches, and passes the scenarios
    //! the lesson is not about. Its failing traces are snapshotted beside this file: the book
    //! shows them.

    use order_saga::{Mix, Violation, scenarios};

    use crate::intended::{Complaint, expect, passing, trace};

    #[tokio::test]
    async fn exercise_announces_a_racing_duplicate_twice() -> Result<(), Complaint> {
        let result = super::play("a_duplicate_racing_an_uncommitted_delivery_changes_nothing", super::exercise()).await;
        let why = "the pre-check decides and the insert's answer is ignored";
        crate::snapshot!(exercise: "a_duplicate_racing_an_uncommitted_delivery_changes_nothing",
            trace(expect(result, super::is_intended, why)?)?
        );
        Ok(())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn exercise_announces_twice_under_the_barrier() -> Result<(), Complaint> {
        let result = scenarios::barrier(super::exercise(), Mix::SameEvent, 8).await;
        expect(
            result,
            super::is_intended,
            "duplicates all pass the pre-check",
        )
        .map(drop)
    }

    /// What lesson 02's exercise gets right: sequential redelivery, errors, and (because its
    /// insert does wait) a first delivery that dies.
    #[tokio::test]
    async fn exercise_passes_what_the_lesson_is_not_about() -> Result<(), Violation> {
        scenarios::redelivered_after_commit(super::exercise()).await?;
        scenarios::event_for_an_unknown_order(super::exercise()).await?;
        super::play("a_redelivery_after_a_cancelled_delivery_applies_the_event", super::exercise()).await?;
        scenarios::instalments_race_for_one_order(super::exercise()).await?;
        super::play("a_payment_for_another_order_does_not_wait", super::exercise()).await?;
        super::play("a_duplicate_waiting_on_a_delivery_that_dies_applies_the_event", super::exercise()).await
    }

    /// The solution's passing traces, which the chapter shows. Only the solution's: a student's
    /// correct handler may interleave differently (wait on another session) and must pass.
    #[tokio::test]
    async fn solution_traces_as_the_chapter_shows_them() -> Result<(), Complaint> {
        let trace = passing(super::play("a_duplicate_racing_an_uncommitted_delivery_changes_nothing", super::solution()))
        .await?;
        crate::snapshot!(solution: "a_duplicate_racing_an_uncommitted_delivery_changes_nothing", trace);
        let trace = passing(super::play("a_duplicate_waiting_on_a_delivery_that_dies_applies_the_event", super::solution()))
        .await?;
        crate::snapshot!(solution: "a_duplicate_waiting_on_a_delivery_that_dies_applies_the_event", trace);
        Ok(())
    }
}
