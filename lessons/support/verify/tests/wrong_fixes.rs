//! Every wrong fix of every lesson's catalogue (`lessons/NN-…/wrong-fixes/*.patch`), patched
//! into its handler by build.rs and run against the lesson's whole suite: each caught for its
//! reason, or passing if it is a correct alternative. One test an entry, named
//! `lesson_NN_<file name>`.

include!(concat!(env!("OUT_DIR"), "/wrong_fix_tests.rs"));

/// Lesson 04's `for-share`, caught for one reason every run, past a reader's share lock: both
/// deliveries read "pending" under FOR SHARE, and then each waits for the other's share lock to
/// write, so PostgreSQL aborts one with a deadlock (40P01).
#[tokio::test]
async fn lesson_04_for_share_deadlocks_past_a_reader() -> Result<(), verify::wrong_fix::Complaint> {
    use kit::Common;
    use order_saga::{FailureCause, Lesson, ViolationKind};
    let for_share = |pool: sqlx::PgPool, event| async move {
        lesson_04::for_share::apply_payment_result(&pool, &event).await
    };
    let past_a_reader = "contradicting_events_racing_past_a_reader_resolve_it_once";
    let subject = verify::saga::subject(&for_share);
    let result = kit::contract::play::<Lesson<4>, _>(past_a_reader, subject).await;
    match result {
        Err(violation)
            if matches!(
                violation.kind,
                ViolationKind::Common(Common::HandlerFailed {
                    cause: FailureCause::Deadlock,
                    ..
                })
            ) =>
        {
            Ok(())
        }
        other => Err(verify::wrong_fix::Complaint(format!(
            "expected a deadlock (40P01) from two share locks and then two writes, got {other:?}"
        ))),
    }
}
