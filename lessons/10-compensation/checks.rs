//! Lesson 10's subjects, race tests, and the checks of its shipped exercise.

use compensation::{Delivery, Handler, Subject, ViolationKind, subject};

crate::lesson_checks::lesson!(
    "10", compensation,
    rounds: |_| 1,
    round: Delivery::round,
    schema(_crate_migrations): [compensation::__private::BASE_MIGRATIONS],
);

/// As shipped: "still held?" read without a lock, then the release in a transaction.
pub fn exercise() -> Subject<impl Handler> {
    subject!(crate::exercise_10::settle_reservation)
}

pub fn solution() -> Subject<impl Handler> {
    subject!(crate::solution_10::settle_reservation)
}

/// The reasons the shipped exercise must fail for: a reservation released twice, released after
/// it was consumed, or settled by more than one delivery (two copies of payment.succeeded that
/// both read "held" and both report Consumed: the same race, which leaves the stock right and
/// only the reports wrong); and a release that fails because it came before the reservation.
/// A setup error, a compile error or a timeout is never it.
pub fn is_intended(kind: &ViolationKind) -> bool {
    match kind {
        ViolationKind::ReleasedTwice { .. }
        | ViolationKind::SettledBothWays { .. }
        | ViolationKind::FailedWithoutAReservation { .. } => true,
        ViolationKind::Misreported {
            released, consumed, ..
        } => released + consumed > 1,
        _ => false,
    }
}

crate::breaking::breakable!("10", lesson compensation::Lesson);

#[cfg(test)]
mod tests {
    //! The shipped exercise releases twice (or releases what was sold), every time, and for no
    //! other reason; a sequential test cannot tell it from the fix, nor can a crash; the
    //! solution passes everything. The failing traces are snapshotted beside this file: the
    //! book shows them.

    use compensation::Violation;

    use crate::intended::{Complaint, expect, passing, trace};

    const WHY: &str = "a delivery decides \"still held\" from a read no lock protects";

    #[tokio::test]
    async fn exercise_releases_twice_under_the_duplicate_race() -> Result<(), Complaint> {
        let result = super::play("a_duplicate_racing_an_uncommitted_release_releases_nothing", super::exercise()).await;
        crate::snapshot!(exercise: "a_duplicate_racing_an_uncommitted_release_releases_nothing",
            trace(expect(result, super::is_intended, WHY)?)?
        );
        Ok(())
    }

    #[tokio::test]
    async fn exercise_releases_twice_for_a_failure_and_a_cancellation() -> Result<(), Complaint> {
        let result = super::play("a_failure_and_a_cancellation_release_the_stock_once", super::exercise()).await;
        crate::snapshot!(exercise: "a_failure_and_a_cancellation_release_the_stock_once",
            trace(expect(result, super::is_intended, WHY)?)?
        );
        Ok(())
    }

    #[tokio::test]
    async fn exercise_releases_what_a_success_consumed() -> Result<(), Complaint> {
        let result = super::play("a_success_and_a_failure_never_both_settle_the_reservation", super::exercise()).await;
        crate::snapshot!(exercise: "a_success_and_a_failure_never_both_settle_the_reservation",
            trace(expect(result, super::is_intended, WHY)?)?
        );
        Ok(())
    }

    /// The compensation that overtakes the action: the shipped handler reads a reservation
    /// that is not there yet, and fails, in both scenarios.
    #[tokio::test]
    async fn exercise_fails_a_cancellation_that_comes_first() -> Result<(), Complaint> {
        let why = "a release that comes before the reservation finds no row, and fails";
        let result = super::play(
            "a_cancellation_before_the_reservation_leaves_nothing_held",
            super::exercise(),
        )
        .await;
        expect(result, super::is_intended, why)?;
        let result = super::play("a_cancellation_racing_the_reservation_releases_it_once", super::exercise()).await;
        crate::snapshot!(exercise: "a_cancellation_racing_the_reservation_releases_it_once",
            trace(expect(result, super::is_intended, why)?)?
        );
        Ok(())
    }

    /// The chapter's first point: the sequential test cannot tell the broken handler from the
    /// fix; nor can a crash (its release is one transaction), nor a replay (its announcement's id
    /// is derived), nor a test about another order.
    #[tokio::test]
    async fn exercise_passes_what_the_lesson_is_not_about() -> Result<(), Violation> {
        let sequential = "a_redelivery_or_a_late_event_after_the_first_changes_nothing";
        super::play(sequential, super::exercise()).await?;
        super::play("a_release_killed_half_way_happens_once_when_redelivered", super::exercise()).await?;
        super::play("a_release_cancelled_half_way_happens_once_when_redelivered", super::exercise()).await?;
        let replayed = "a_replay_after_a_restore_is_announced_under_the_same_id";
        super::play(replayed, super::exercise()).await?;
        super::play("a_release_for_another_order_does_not_wait", super::exercise()).await
    }

    /// The solution's passing traces, which the chapter shows. Only the solution's: a student's
    /// correct handler may interleave differently (wait on another session) and must pass.
    #[tokio::test]
    async fn solution_traces_as_the_chapter_shows_them() -> Result<(), Complaint> {
        let trace = passing(super::play("a_failure_and_a_cancellation_release_the_stock_once", super::solution())).await?;
        crate::snapshot!(solution: "a_failure_and_a_cancellation_release_the_stock_once", trace);
        let trace = passing(super::play("a_success_and_a_failure_never_both_settle_the_reservation", super::solution())).await?;
        crate::snapshot!(solution: "a_success_and_a_failure_never_both_settle_the_reservation", trace);
        let trace = passing(super::play("a_release_killed_half_way_happens_once_when_redelivered", super::solution()))
        .await?;
        crate::snapshot!(solution: "a_release_killed_half_way_happens_once_when_redelivered", trace);
        let trace = passing(super::play("a_cancellation_racing_the_reservation_releases_it_once", super::solution()))
        .await?;
        crate::snapshot!(solution: "a_cancellation_racing_the_reservation_releases_it_once", trace);
        Ok(())
    }
}
