//! Lesson 11's subjects, race and fault tests, and the checks of its shipped exercise.

use http_keys::{Api, Delivery, Subject, ViolationKind, api, subject};

crate::lesson_checks::lesson!(
    "11", http_keys,
    rounds: |_| 1,
    round: Delivery::round,
    schema(crate_migrations): [http_keys::__private::BASE_MIGRATIONS, crate_migrations],
    through: http_keys::api,
);

/// The crates' folders, for their migrations: the exercise's as shipped (the runner's copy).
const EXERCISE_DIR: &str = crate::EXERCISE_11_DIR;
const SOLUTION_DIR: &str = crate::SOLUTION_11_DIR;

/// As shipped: the key looked up, then the payment made and the key remembered; a retry answered
/// with the payment as it is now.
/// Each is the API in front of its handler, as the tests send it requests.
pub fn exercise() -> Subject<impl Api> {
    api(subject!(crate::exercise_11::create_payment, EXERCISE_DIR))
}

pub fn solution() -> Subject<impl Api> {
    api(subject!(crate::solution_11::create_payment, SOLUTION_DIR))
}

/// The reason the shipped exercise must fail for: one key, more than one payment, when the
/// requests overlapped. A setup error, a compile error or a timeout is never it.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(
        kind,
        ViolationKind::PaidTwice {
            overlapped: true,
            ..
        }
    )
}

crate::breaking::breakable!("11", lesson http_keys::Lesson);

#[cfg(test)]
mod tests {
    //! The shipped exercise pays twice whenever a client's retries overlap, every time, and for
    //! no other reason in those tests; it answers a retry with the payment as it is now, and a
    //! reused key with the first payment; a crash cannot tell it from the fix; the solution
    //! passes everything. The failing traces are snapshotted beside this file: the book shows
    //! them.

    use http_keys::{Violation, ViolationKind};

    use crate::intended::{Complaint, expect, passing, trace};

    const WHY: &str = "a key looked up by a read decides nothing while two requests overlap";

    #[tokio::test]
    async fn exercise_pays_twice_when_a_retry_races_the_first_request() -> Result<(), Complaint> {
        let test = "a_retry_racing_an_uncommitted_first_request_pays_nothing";
        let result = super::play(test, super::exercise()).await;
        crate::snapshot!(exercise: "a_retry_racing_an_uncommitted_first_request_pays_nothing",
            trace(expect(result, super::is_intended, WHY)?)?
        );
        Ok(())
    }

    #[tokio::test]
    async fn exercise_pays_twice_for_retries_released_together() -> Result<(), Complaint> {
        let test = "requests_released_together_pay_once::case_2_eight_requests";
        let result = super::play(test, super::exercise()).await;
        expect(result, super::is_intended, WHY).map(drop)
    }

    /// The sequential tests catch the rest of what the exercise gets wrong: a retry answered
    /// with the payment as it is now, and a reused key answered with the first payment.
    #[tokio::test]
    async fn exercise_answers_a_retry_and_a_reused_key_wrongly() -> Result<(), Complaint> {
        let replay = super::play("a_retry_gets_the_first_response_byte_for_byte", super::exercise());
        let reused = super::play("a_key_sent_with_another_request_is_refused", super::exercise());
        match (replay.await, reused.await) {
            (
                Err(Violation {
                    kind: ViolationKind::ReplayDiffers { .. },
                    ..
                }),
                Err(Violation {
                    kind: ViolationKind::KeyReusedNotRefused { .. },
                    ..
                }),
            ) => Ok(()),
            (replay, reused) => Err(Complaint(format!(
                "expected ReplayDiffers and KeyReusedNotRefused; got {replay:?} and {reused:?}"
            ))),
        }
    }

    /// A client that chose another client's key cannot tell the broken handler from the fix,
    /// nor can a key's expiry. (Nor can a crash or an abandoned request, since its payment and
    /// its key commit in one transaction: the specs' `expect exercise holds` say so.)
    #[tokio::test]
    async fn exercise_passes_what_the_lesson_is_not_about() -> Result<(), Violation> {
        let forgotten = "a_key_is_remembered_for_its_window_and_then_forgotten";
        super::play(forgotten, super::exercise()).await?;
        let same_key = "another_clients_same_key_is_a_payment_of_its_own";
        super::play(same_key, super::exercise()).await?;
        super::play("another_clients_request_does_not_wait_for_ours", super::exercise()).await
    }

    /// The solution's passing traces, which the chapter shows. Only the solution's: a student's
    /// correct handler may interleave differently (wait on another session) and must pass.
    #[tokio::test]
    async fn solution_traces_as_the_chapter_shows_them() -> Result<(), Complaint> {
        for test in [
            "a_retry_racing_an_uncommitted_first_request_pays_nothing",
            "another_request_racing_an_uncommitted_first_is_refused",
            "a_retry_that_stops_waiting_is_told_to_come_back",
            "a_request_killed_half_way_leaves_its_key_free",
            "a_request_abandoned_half_way_leaves_its_key_free",
            "another_clients_request_does_not_wait_for_ours",
        ] {
            let trace = passing(super::play(test, super::solution())).await?;
            crate::snapshot!(format!("solution_{test}"), trace);
        }
        Ok(())
    }
}
