//! Lesson 06's subjects, race and fault tests, as the checks run them.

use deterministic_ids::{Delivery, Handler, Subject, ViolationKind, subject};

crate::lesson_checks::lesson!(
    "06", deterministic_ids,
    rounds: |_| 1,
    round: Delivery::round,
    schema(_crate_migrations): [deterministic_ids::__private::BASE_MIGRATIONS],
);

/// As shipped: "charged already?", then a fresh random id for the network and the saga.
pub fn exercise() -> Subject<impl Handler> {
    subject!(crate::exercise_06::take_payment)
}

pub fn solution() -> Subject<impl Handler> {
    subject!(crate::solution_06::take_payment)
}

/// The reason the shipped exercise must fail for: the customer charged twice. A setup error, a
/// compile error or a timeout is never it.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(kind, ViolationKind::ChargedTwice { .. })
}

crate::breaking::breakable!("06", lesson deterministic_ids::Lesson);

#[cfg(test)]
mod tests {
    //! The shipped exercise charges twice, every time, and for no other reason; a sequential
    //! test cannot tell it from the fix; the solution passes everything. The failing traces are
    //! snapshotted beside this file: the book shows them.

    use deterministic_ids::Violation;

    use crate::intended::{Complaint, expect, passing, trace};

    const WHY: &str = "each delivery hands the card network a key of its own";

    #[tokio::test]
    async fn exercise_charges_twice_when_a_delivery_dies_after_charging() -> Result<(), Complaint> {
        let result = super::play("a_delivery_that_dies_after_charging_is_not_charged_again", super::exercise()).await;
        crate::snapshot!(exercise: "a_delivery_that_dies_after_charging_is_not_charged_again",
            trace(expect(result, super::is_intended, WHY)?)?.numbered()
        );
        Ok(())
    }

    #[tokio::test]
    async fn exercise_charges_twice_under_the_forced_race() -> Result<(), Complaint> {
        let result = super::play("a_duplicate_racing_an_uncommitted_delivery_charges_nothing", super::exercise()).await;
        crate::snapshot!(exercise: "a_duplicate_racing_an_uncommitted_delivery_charges_nothing",
            trace(expect(result, super::is_intended, WHY)?)?.numbered()
        );
        Ok(())
    }

    #[tokio::test]
    async fn exercise_charges_twice_when_replayed_after_a_restore() -> Result<(), Complaint> {
        let result = super::play(
            "a_replay_after_a_restore_is_recognised_by_the_network_and_the_saga",
            super::exercise(),
        )
        .await;
        expect(result, super::is_intended, WHY).map(drop)
    }

    /// The chapter's first point: the sequential test cannot tell the broken handler from the
    /// fix; nor can a test about another order (nor a crash during the charge: its spec says
    /// so, and the specs' check holds it to that).
    #[tokio::test]
    async fn exercise_passes_what_the_lesson_is_not_about() -> Result<(), Violation> {
        super::play("a_redelivery_after_the_first_charges_nothing", super::exercise()).await?;
        super::play("a_payment_for_another_order_does_not_wait", super::exercise()).await
    }

    /// The solution's passing traces, which the chapter shows. Only the solution's: a student's
    /// correct handler may interleave differently (wait on another session) and must pass.
    #[tokio::test]
    async fn solution_traces_as_the_chapter_shows_them() -> Result<(), Complaint> {
        let trace = passing(super::play("a_delivery_that_dies_after_charging_is_not_charged_again", super::solution()))
        .await?;
        crate::snapshot!(solution: "a_delivery_that_dies_after_charging_is_not_charged_again", trace);
        let trace = passing(super::play("a_duplicate_racing_an_uncommitted_delivery_charges_nothing", super::solution()))
        .await?;
        crate::snapshot!(solution: "a_duplicate_racing_an_uncommitted_delivery_charges_nothing", trace);
        Ok(())
    }
}
