//! Lesson 13's subjects, race tests, and the checks of its shipped exercise; and the chapter's
//! table of anomalies by isolation level, played and written here.

use serializable_retry::{Delivery, Handler, Subject, ViolationKind, subject};

crate::lesson_checks::lesson!(
    "13", serializable_retry,
    rounds: |_| 1,
    round: Delivery::round,
    schema(_crate_migrations): [serializable_retry::__private::BASE_MIGRATIONS],
);

/// As shipped: the transaction at SERIALIZABLE, run once.
pub fn exercise() -> Subject<impl Handler> {
    subject!(crate::exercise_13::authorize)
}

pub fn solution() -> Subject<impl Handler> {
    subject!(crate::solution_13::authorize)
}

/// The reason the shipped exercise must fail for: a delivery the database aborted for a
/// conflict, handed back after one attempt. A setup error, a compile error or a timeout is
/// never it.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(kind, ViolationKind::NotRetried { attempts: 1, .. })
}

crate::breaking::breakable!("13", lesson serializable_retry::Lesson);

#[cfg(test)]
mod tests {
    //! The shipped exercise hands back every abort, at a statement and at COMMIT, and fails for
    //! no other reason; one delivery at a time, a copy, a crash and an unknown card cannot tell
    //! it from the fix (their specs say so, `expect exercise holds`, and the specs' check holds
    //! them to it, as it holds the injected conflicts to `expect exercise NotRetried`); the
    //! solution passes everything. The failing traces, the solution's, and
    //! the table of anomalies are snapshotted beside this file: the book shows them.

    use serializable_retry::anomalies::{self, Anomaly};

    use crate::intended::{Complaint, expect, passing, trace};

    const WHY: &str = "a delivery the database aborted is not run again";

    #[tokio::test]
    async fn exercise_hands_back_an_abort_at_commit() -> Result<(), Complaint> {
        let result =
            super::play("an_approval_refused_at_commit_is_decided_again", super::exercise()).await;
        crate::snapshot!(exercise: "an_approval_refused_at_commit_is_decided_again",
            trace(expect(result, super::is_intended, WHY)?)?
        );
        Ok(())
    }

    #[tokio::test]
    async fn exercise_hands_back_an_abort_at_an_update() -> Result<(), Complaint> {
        let result =
            super::play("an_approval_refused_at_its_update_is_decided_again", super::exercise())
                .await;
        crate::snapshot!(exercise: "an_approval_refused_at_its_update_is_decided_again",
            trace(expect(result, super::is_intended, WHY)?)?
        );
        Ok(())
    }

    /// The solution's passing traces, which the chapter shows. Only the solution's: a student's
    /// correct handler may interleave differently and must pass.
    #[tokio::test]
    async fn solution_traces_as_the_chapter_shows_them() -> Result<(), Complaint> {
        let trace = passing(super::play("an_approval_refused_at_commit_is_decided_again", super::solution())).await?;
        crate::snapshot!(solution: "an_approval_refused_at_commit_is_decided_again", trace);
        let trace = passing(super::play("an_approval_refused_at_its_update_is_decided_again", super::solution())).await?;
        crate::snapshot!(solution: "an_approval_refused_at_its_update_is_decided_again", trace);
        let trace = passing(super::play("a_copy_racing_an_uncommitted_decision_is_a_duplicate", super::solution())).await?;
        crate::snapshot!(solution: "a_copy_racing_an_uncommitted_decision_is_a_duplicate", trace);
        Ok(())
    }

    /// The chapter's table: Hermitage's ten anomalies at three levels, played now, with the
    /// traces of the cells the chapter walks through. A PostgreSQL that answered otherwise would
    /// change the table, and the snapshot would say so.
    #[tokio::test]
    async fn the_anomalies_at_each_level_as_the_chapter_shows_them() -> Result<(), Complaint> {
        let complain = |e: kit::KitError| Complaint(format!("an anomaly could not be played: {e}"));
        crate::snapshot!("anomalies_table", anomalies::table().await.map_err(complain)?);
        for (code, level, name) in [
            ("P4", "READ COMMITTED", "anomaly_lost_update_read_committed"),
            ("P4", "REPEATABLE READ", "anomaly_lost_update_repeatable_read"),
            ("G-single", "READ COMMITTED", "anomaly_read_skew_read_committed"),
            ("G2-item", "REPEATABLE READ", "anomaly_write_skew_repeatable_read"),
            ("G2-item", "SERIALIZABLE", "anomaly_write_skew_serializable"),
            ("G2", "SERIALIZABLE", "anomaly_g2_serializable"),
        ] {
            let anomaly = Anomaly::named(code).expect("one of Hermitage's ten");
            // Recorded, so that the book's stepper can play each statement of the cell.
            let played = kit::recorded(anomalies::play(anomaly, level)).await.map_err(complain)?;
            crate::snapshot!(name, crate::intended::Traced::of(&played.trace));
        }
        Ok(())
    }
}
