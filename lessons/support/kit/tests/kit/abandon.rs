//! A worker abandoned by a script: its future is dropped where it waits, none of its code runs
//! after that, and what it had not committed rolls back once the statement it waited in ends.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use kit::{Interleaving, Script};
use sqlx::PgPool;

#[tokio::test]
async fn an_abandoned_worker_runs_no_more_code_and_its_work_rolls_back() {
    let (db, session) = crate::accounts_and_claims().await;
    // Set if the worker's code ever runs past the statement it is abandoned in: its error
    // branch, say, which a dropped future never reaches.
    let went_on = Arc::new(AtomicBool::new(false));
    let handler = {
        let went_on = went_on.clone();
        move |pool: PgPool, (): ()| {
            let went_on = went_on.clone();
            async move {
                let mut tx = pool.begin().await?;
                sqlx::query("INSERT INTO claims VALUES (1)")
                    .execute(&mut *tx)
                    .await?;
                let credited =
                    sqlx::query("UPDATE accounts SET balance = balance + 1 WHERE id = 1")
                        .execute(&mut *tx)
                        .await;
                went_on.store(true, Ordering::SeqCst);
                credited?;
                tx.commit().await
            }
        }
    };
    let script = Script::new(&handler, |()| "credit".into())
        .sql(
            "holder",
            "lock",
            "BEGIN; SELECT 1 FROM accounts WHERE id = 1 FOR UPDATE",
        )
        .sql("holder", "commit", "COMMIT")
        .deliver("worker", "credit", ())
        .abandon("abandon", "worker");
    let mut interleaving = Interleaving::new(&db).await.unwrap();
    let ran = interleaving
        .run(&db, script, "lock credit abandon commit", |r| {
            format!("{r:?}")
        })
        .await
        .unwrap();

    assert!(ran.abandoned("worker") && ran.outcomes.is_empty());
    assert!(
        !went_on.load(Ordering::SeqCst),
        "no code runs after the abandoned .await"
    );
    // The run ends only once the worker's connection is back in its pool, rolled back.
    let claims: i64 = session
        .query_one("SELECT count(*) FROM claims", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(claims, 0, "the abandoned transaction never committed");
    let trace = interleaving.trace().to_string();
    assert!(trace.contains("worker: <abandoned"), "{trace}");
}
