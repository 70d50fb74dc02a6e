//! A worker paused right after a commit, overtaken there by another session, then resumed: the
//! moment between a commit and the handler's next statement, held open by the relay so that the
//! other session's write lands in it every run.

use kit::{Cut, Interleaving, Script};
use sqlx::PgPool;

/// Records the claim on its own (it commits as it runs), then credits the account.
async fn claim_then_credit(pool: PgPool, (): ()) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO claims VALUES (1)")
        .execute(&pool)
        .await?;
    sqlx::query("UPDATE accounts SET balance = balance + 1 WHERE id = 1")
        .execute(&pool)
        .await?;
    Ok(())
}

#[tokio::test]
async fn a_paused_worker_is_overtaken_between_its_commit_and_its_next_statement() {
    let (db, session) = crate::accounts_and_claims().await;
    // Were the worker not paused, its credit would come first and the reset would erase it.
    let script = Script::new(&claim_then_credit, |()| "claim, then credit".into())
        .cut("pause", "worker", Cut::PauseAfterCommit)
        .deliver("worker", "go", ())
        .sql(
            "other",
            "reset",
            "UPDATE accounts SET balance = 10 WHERE id = 1",
        )
        .resume("resume", "worker");
    let mut interleaving = Interleaving::new(&db).await.unwrap();
    let ran = interleaving
        .run(&db, script, "pause go reset resume", |r| format!("{r:?}"))
        .await
        .unwrap();
    let trace = interleaving.trace().to_string();
    assert!(ran.outcomes[0].1.is_ok(), "{trace}");
    assert!(
        ran.waited("worker"),
        "a paused worker counts as waiting\n{trace}"
    );
    assert_eq!(ran.cut("worker"), None, "a pause cuts nothing\n{trace}");
    let balance: i32 = session
        .query_one("SELECT balance FROM accounts WHERE id = 1", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        balance, 11,
        "the reset landed between claim and credit\n{trace}"
    );
    let lines: Vec<&str> = trace.lines().collect();
    let at = |what: &str| lines.iter().position(|l| l.contains(what));
    assert!(
        at("<paused once the server had committed (INSERT 0 1)") < at("other: UPDATE")
            && at("other: UPDATE") < at("<resumed"),
        "{trace}"
    );
}
