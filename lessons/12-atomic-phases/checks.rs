//! Lesson 12's subjects, fault tests, and the checks of its shipped exercise.

use atomic_phases::{Api, Delivery, Subject, ViolationKind, api, subject};

crate::lesson_checks::lesson!(
    "12", atomic_phases,
    rounds: atomic_phases::scenarios::barrier_rounds,
    round: Delivery::round,
    schema(crate_migrations): [atomic_phases::BASE_MIGRATIONS, crate_migrations],
    through: atomic_phases::api,
);

/// The crates' folders, for their migrations: the exercise's as shipped (the runner's copy).
const EXERCISE_DIR: &str = crate::EXERCISE_12_DIR;
const SOLUTION_DIR: &str = crate::SOLUTION_12_DIR;

/// As shipped: lesson 11's solution, with the charge made at the provider inside its
/// transaction and under no key of its own.
/// Each is lesson 11's API in front of its handlers, as the tests send it steps.
pub fn exercise() -> Subject<impl Api> {
    api(subject!(exercise_12, EXERCISE_DIR))
}

pub fn solution() -> Subject<impl Api> {
    api(subject!(solution_12, SOLUTION_DIR))
}

use crate::{exercise_12, solution_12};

/// The reason the shipped exercise must fail for: a charge its rollback forgot, charged again
/// by the retry, or left out of our books when nobody retried. `cargo repeat 12` counts the
/// tests it fails for it (the list marks them, or their specs expect it): the provider that
/// hangs up, the request that dies between phases, and the barrier, which charges twice at once,
/// since every request of its first burst charges and hangs up. Not among them: the zombie, the
/// failing provider and the completer's lease, which the shipped exercise passes (its work is
/// one transaction), the two tests of the provider's key, which it passes too (it sends none,
/// and none of them is a race), and the slow provider, which it fails for another reason (it
/// holds its connection while it waits).
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(
        kind,
        ViolationKind::ChargedTwice { .. } | ViolationKind::BooksDisagree { recorded: 0, .. }
    )
}

crate::breaking::breakable!("12", lesson atomic_phases::Lesson);

#[cfg(test)]
mod tests {
    //! The shipped exercise charges twice whenever the provider's answer is lost, and for no
    //! other reason in those tests; it holds its connection while the provider is slow; it
    //! passes the stories its one transaction cannot get wrong; the solution passes everything.

    use atomic_phases::{Violation, ViolationKind};

    use crate::intended::{Complaint, expect, passing, trace};

    const WHY: &str = "a charge made inside a transaction that rolls back is still a charge";

    #[tokio::test]
    async fn exercise_charges_twice_when_the_provider_hangs_up() -> Result<(), Complaint> {
        let result = super::play("a_provider_that_hangs_up_charges_once", super::exercise());
        expect(result.await, super::is_intended, WHY).map(drop)
    }

    #[tokio::test]
    async fn exercise_loses_the_charge_when_it_dies_between_phases() -> Result<(), Complaint> {
        let test = "a_request_that_dies_between_phases_is_completed";
        let result = super::play(test, super::exercise()).await;
        crate::snapshot!(exercise: "a_request_that_dies_between_phases_is_completed",
            trace(expect(result, super::is_intended, WHY)?)?
        );
        Ok(())
    }

    #[tokio::test]
    async fn exercise_holds_its_connection_while_the_provider_is_slow() -> Result<(), Complaint> {
        match super::play("a_slow_provider_holds_up_no_one", super::exercise()).await {
            Err(Violation {
                kind: ViolationKind::HeldUpByASlowProvider { .. },
                ..
            }) => Ok(()),
            other => Err(Complaint(format!(
                "expected HeldUpByASlowProvider, got {other:?}"
            ))),
        }
    }

    /// One transaction cannot record a charge twice, nor be taken over, nor leave a key
    /// behind: the stories about the phases' own mistakes pass.
    #[tokio::test]
    async fn exercise_passes_what_the_lesson_is_not_about() -> Result<(), Violation> {
        for test in [
            "a_provider_that_fails_is_retried_after_the_lease",
            "a_zombie_records_nothing",
            "the_completer_leaves_a_live_request_alone",
            // It sends the provider no key at all: no key can come back, or be too long.
            "a_key_used_again_after_the_window_is_a_new_payment",
            "the_longest_key_the_api_accepts_is_charged",
        ] {
            super::play(test, super::exercise()).await?;
        }
        Ok(())
    }

    /// The solution's passing traces, which the chapter shows.
    #[tokio::test]
    async fn solution_traces_as_the_chapter_shows_them() -> Result<(), Complaint> {
        for test in [
            "a_provider_that_fails_is_retried_after_the_lease",
            "a_zombie_records_nothing",
            "a_request_that_dies_between_phases_is_completed",
            "the_completer_leaves_a_live_request_alone",
        ] {
            let trace = passing(super::play(test, super::solution())).await?;
            crate::snapshot!(format!("solution_{test}"), trace);
        }
        Ok(())
    }
}
