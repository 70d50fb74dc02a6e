//! Lesson 07's subjects, race and fault tests, as the checks run them.

use at_least_once::{Handler, Subject, ViolationKind, subject};

// The suite's soak is the short one: the long one runs in the students' tests and in
// `cargo repeat 07`.
crate::lesson_checks::lesson!(
    "07", at_least_once,
    rounds: |_| 1,
    round: |_| 1,
    schema(_crate_migrations): at_least_once::__private::BASE_MIGRATIONS,
);

/// As shipped: the offset is committed first, then each event is handled on its own.
pub fn exercise() -> Subject<impl Handler> {
    subject!(crate::exercise_07::poll)
}

pub fn solution() -> Subject<impl Handler> {
    subject!(crate::solution_07::poll)
}

/// The reasons the shipped exercise must fail for: an event lost past the committed offset, or
/// (with two consumers) applied out of the log's order. A setup error or a timeout is never it.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(
        kind,
        ViolationKind::EventsLost { .. } | ViolationKind::AppliedOutOfOrder { .. }
    )
}

crate::breaking::breakable!("07", lesson at_least_once::Lesson);

#[cfg(test)]
mod tests {
    //! The shipped exercise loses events when a consumer dies mid-batch, every time, and applies
    //! a later verdict first when a second consumer polls; the sequential, growing-log and
    //! barrier tests cannot tell it from the fix; the solution passes everything. The failing
    //! traces are snapshotted beside this file: the book shows them.

    use at_least_once::{Violation, scenarios};

    use crate::intended::{Complaint, expect, passing, trace};

    const WHY: &str = "the offset is committed before the events are handled";

    #[tokio::test]
    async fn exercise_loses_the_rest_of_its_batch_when_it_dies() -> Result<(), Complaint> {
        let result = super::play("a_consumer_that_dies_mid_batch_loses_nothing", super::exercise()).await;
        crate::snapshot!(exercise: "a_consumer_that_dies_mid_batch_loses_nothing",
            trace(expect(result, super::is_intended, WHY)?)?
        );
        Ok(())
    }

    #[tokio::test]
    async fn exercise_lets_a_second_consumer_overtake_the_first() -> Result<(), Complaint> {
        let result = super::play("a_second_consumer_of_the_group_waits_its_turn", super::exercise()).await;
        crate::snapshot!(exercise: "a_second_consumer_of_the_group_waits_its_turn",
            trace(expect(result, super::is_intended, WHY)?)?
        );
        Ok(())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn exercise_loses_events_in_the_quick_soak() -> Result<(), Complaint> {
        let result = scenarios::soak(super::exercise(), scenarios::QUICK)
            .await
            .map(drop);
        expect(result, super::is_intended, WHY).map(drop)
    }

    /// Without a crash or a second consumer in the middle of a batch, the order of the offset
    /// and the effects makes no difference.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn exercise_passes_what_the_lesson_is_not_about() -> Result<(), Violation> {
        scenarios::consumed_once(super::exercise()).await?;
        scenarios::the_log_grows_between_polls(super::exercise()).await?;
        scenarios::another_group_is_not_held_up(super::exercise()).await?;
        scenarios::barrier(super::exercise(), 8).await
    }

    /// The solution's passing traces, which the chapter shows. Only the solution's: a student's
    /// correct consumer may interleave differently (wait on another session) and must pass.
    #[tokio::test]
    async fn solution_traces_as_the_chapter_shows_them() -> Result<(), Complaint> {
        let trace = passing(super::play("a_consumer_that_dies_mid_batch_loses_nothing", super::solution())).await?;
        crate::snapshot!(solution: "a_consumer_that_dies_mid_batch_loses_nothing", trace);
        let trace = passing(super::play("a_second_consumer_of_the_group_waits_its_turn", super::solution()))
        .await?;
        crate::snapshot!(solution: "a_second_consumer_of_the_group_waits_its_turn", trace);
        Ok(())
    }
}
