//! Lesson 03's subjects and fault tests, as the checks run them.

use order_saga::ViolationKind;

// LESSON, the subjects, the tests as data, BREAK, probes and suite, as every saga lesson's checks
// write them. The exercise, as shipped: the event is claimed and committed on its own, then
// applied.
crate::saga::lesson!("03", 3, exercise_03, solution_03);

/// The record outlives the effect: an event lost, or given up on before it was applied.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(
        kind,
        ViolationKind::LostEvent { .. }
            | ViolationKind::DecidedWithoutWaiting { .. }
            | ViolationKind::RecordedWithoutEffect
    )
}

#[cfg(test)]
mod tests {
    //! The shipped exercise fails for the reason this lesson teaches, and passes the scenarios
    //! the lesson is not about. Its failing traces are snapshotted beside this file: the book
    //! shows them.

    use order_saga::{Mix, Violation, scenarios};

    use crate::intended::{Complaint, expect, passing, trace};

    #[tokio::test]
    async fn exercise_loses_the_event_when_the_worker_dies() -> Result<(), Complaint> {
        let result = super::play("a_delivery_that_dies_halfway_is_applied_by_the_redelivery", super::exercise()).await;
        let why = "the claim commits before the effect";
        crate::snapshot!(exercise: "a_delivery_that_dies_halfway_is_applied_by_the_redelivery",
            trace(expect(result, super::is_intended, why)?)?
        );
        Ok(())
    }

    #[tokio::test]
    async fn exercise_gives_up_on_an_event_nobody_has_applied() -> Result<(), Complaint> {
        let result = super::play("a_duplicate_racing_an_uncommitted_delivery_changes_nothing", super::exercise()).await;
        let why = "the duplicate sees a committed claim and does not wait for the effect";
        crate::snapshot!(exercise: "a_duplicate_racing_an_uncommitted_delivery_changes_nothing",
            trace(expect(result, super::is_intended, why)?)?
        );
        Ok(())
    }

    #[tokio::test]
    async fn exercise_loses_the_event_when_the_delivery_it_raced_dies() -> Result<(), Complaint> {
        let result =
            super::play("a_duplicate_waiting_on_a_delivery_that_dies_applies_the_event", super::exercise()).await;
        let why = "the claim commits before the effect";
        expect(result, super::is_intended, why).map(drop)
    }

    /// A fault that kills nothing splits the two commits just the same.
    #[tokio::test]
    async fn exercise_loses_the_event_when_its_statement_is_cancelled() -> Result<(), Complaint> {
        let result = super::play("a_redelivery_after_a_cancelled_delivery_applies_the_event", super::exercise()).await;
        let why = "the claim commits before the effect, and the cancel rolls back only the effect";
        crate::snapshot!(exercise: "a_redelivery_after_a_cancelled_delivery_applies_the_event",
            trace(expect(result, super::is_intended, why)?)?
        );
        Ok(())
    }

    /// Concurrency alone never splits lesson 03's two commits: only a fault does.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn exercise_passes_what_the_lesson_is_not_about() -> Result<(), Violation> {
        scenarios::redelivered_after_commit(super::exercise()).await?;
        scenarios::instalments_race_for_one_order(super::exercise()).await?;
        super::play("a_payment_for_another_order_does_not_wait", super::exercise()).await?;
        scenarios::barrier(super::exercise(), Mix::SameEvent, 8).await
    }

    /// The solution's passing traces, which the chapter shows. Only the solution's: a student's
    /// correct handler may interleave differently (wait on another session) and must pass.
    #[tokio::test]
    async fn solution_traces_as_the_chapter_shows_them() -> Result<(), Complaint> {
        let trace = passing(super::play("a_delivery_that_dies_halfway_is_applied_by_the_redelivery", super::solution()))
        .await?;
        crate::snapshot!(solution: "a_delivery_that_dies_halfway_is_applied_by_the_redelivery", trace);
        let trace = passing(super::play("a_redelivery_after_a_cancelled_delivery_applies_the_event", super::solution()))
        .await?;
        crate::snapshot!(solution: "a_redelivery_after_a_cancelled_delivery_applies_the_event", trace);
        Ok(())
    }
}
