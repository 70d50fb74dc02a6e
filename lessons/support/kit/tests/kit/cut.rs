//! A worker whose connection a relay cuts at its COMMIT: before the COMMIT reaches the server
//! (it rolls back) or after the server has answered it (the work is kept). Either way the
//! handler sees its connection fail at COMMIT, and only asking the server tells the two apart.

use kit::{Cut, Interleaving, Schema, Script, TestDatabase};
use sqlx::PgPool;

/// Plays one delivery of `credit`, its connection cut as `cut` says: what it returned, the
/// claims the server kept, the trace, and the cut the run reports.
async fn played(cut: Cut) -> (Vec<bool>, i64, String, Option<Cut>) {
    let (db, session) = crate::accounts_and_claims().await;
    let script = Script::new(&crate::credit, |()| "credit".into())
        .cut("lose", "worker", cut)
        .deliver("worker", "credit", ());
    let mut interleaving = Interleaving::new(&db).await.unwrap();
    let ran = interleaving
        .run(&db, script, "lose credit", |r| format!("{r:?}"))
        .await
        .unwrap();
    let returned: Vec<bool> = ran.outcomes.iter().map(|(_, r)| r.is_ok()).collect();
    let claims: i64 = session
        .query_one("SELECT count(*) FROM claims", &[])
        .await
        .unwrap()
        .get(0);
    (
        returned,
        claims,
        interleaving.trace().to_string(),
        ran.cut("worker"),
    )
}

#[tokio::test]
async fn a_commit_cut_after_the_server_answered_is_kept_and_the_handler_sees_an_error() {
    let (returned, claims, trace, cut) = played(Cut::AfterCommit).await;
    assert_eq!(
        returned,
        [false],
        "the handler got no answer to its COMMIT\n{trace}"
    );
    assert_eq!(claims, 1, "the server committed before the cut\n{trace}");
    assert_eq!(cut, Some(Cut::AfterCommit));
    assert!(trace.contains("the server committed its work"), "{trace}");
}

#[tokio::test]
async fn a_commit_cut_before_the_server_got_it_rolls_back_and_the_handler_sees_an_error() {
    let (returned, claims, trace, cut) = played(Cut::BeforeCommit).await;
    assert_eq!(
        returned,
        [false],
        "the handler got no answer to its COMMIT\n{trace}"
    );
    assert_eq!(claims, 0, "the server never got the COMMIT\n{trace}");
    assert_eq!(cut, Some(Cut::BeforeCommit));
    assert!(
        trace.contains("its COMMIT never reached the server"),
        "{trace}"
    );
}

/// Claims row 1 and commits; if the COMMIT's answer is lost, asks the server on a new
/// connection what became of the transaction, and returns what it says.
async fn claim_and_ask(pool: PgPool, (): ()) -> Result<String, sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("INSERT INTO claims VALUES (1)")
        .execute(&mut *tx)
        .await?;
    let xid: String = sqlx::query_scalar("SELECT pg_current_xact_id()::text")
        .fetch_one(&mut *tx)
        .await?;
    match tx.commit().await {
        Ok(()) => Ok("committed, and told so".into()),
        Err(_) => {
            sqlx::query_scalar("SELECT pg_xact_status($1::text::xid8)")
                .bind(xid)
                .fetch_one(&pool)
                .await
        }
    }
}

/// A COMMIT lost with the server not told: asked while the delivery runs, the server says its
/// transaction is `in progress`; once the delivery has answered, the transaction has rolled
/// back, and nothing of it holds a lock.
#[tokio::test]
async fn a_commit_lost_unnoticed_is_in_progress_until_the_delivery_answers() {
    let (db, session) = crate::accounts_and_claims().await;
    let script = Script::new(&claim_and_ask, |()| "claim".into())
        .cut("lose", "worker", Cut::BeforeCommitHeldOpen)
        .deliver("worker", "claim", ());
    let mut interleaving = Interleaving::new(&db).await.unwrap();
    let ran = interleaving
        .run(&db, script, "lose claim", |r| format!("{r:?}"))
        .await
        .unwrap();
    let trace = interleaving.trace().to_string();
    let (_, asked) = &ran.outcomes[0];
    assert_eq!(asked.as_deref().ok(), Some("in progress"), "{trace}");
    assert_eq!(ran.cut("worker"), Some(Cut::BeforeCommitHeldOpen));
    // The row the dead transaction inserted is gone, and its key free: this insert would wait
    // on a transaction still open.
    session
        .batch_execute("SET lock_timeout = '5s'; INSERT INTO claims VALUES (1)")
        .await
        .unwrap_or_else(|e| panic!("the held transaction still holds its row: {e}\n{trace}"));
    assert!(trace.contains("kept the transaction open"), "{trace}");
}

/// A handler that retries on a new connection while its lost COMMIT is held open waits on its
/// own dead transaction: the relay lets go as soon as it waits, and the retry commits.
#[tokio::test]
async fn a_retry_waiting_on_its_own_held_transaction_is_let_through() {
    let (db, session) = crate::accounts_and_claims().await;
    async fn credit_twice_if_need_be(pool: PgPool, (): ()) -> Result<(), sqlx::Error> {
        match crate::credit(pool.clone(), ()).await {
            Err(sqlx::Error::Io(_)) => crate::credit(pool, ()).await,
            other => other,
        }
    }
    let script = Script::new(&credit_twice_if_need_be, |()| "credit".into())
        .cut("lose", "worker", Cut::BeforeCommitHeldOpen)
        .deliver("worker", "credit", ());
    let mut interleaving = Interleaving::new(&db).await.unwrap();
    let ran = interleaving
        .run(&db, script, "lose credit", |r| format!("{r:?}"))
        .await
        .unwrap();
    let trace = interleaving.trace().to_string();
    assert!(ran.outcomes[0].1.is_ok(), "the retry committed\n{trace}");
    assert!(ran.committed_after_cut("worker"), "{trace}");
    let balance: i32 = session
        .query_one("SELECT balance FROM accounts WHERE id = 1", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(balance, 1, "one credit, the retry's\n{trace}");
}

/// The relay cuts once: a handler that retries on a new connection reaches the server, and
/// can ask it what became of its first transaction (`pg_xact_status`).
#[tokio::test]
async fn a_handler_that_asks_the_server_learns_its_commit_was_kept() {
    let db = TestDatabase::create(&Schema::from_dirs(Vec::<std::path::PathBuf>::new()))
        .await
        .unwrap();
    db.session()
        .await
        .unwrap()
        .batch_execute("CREATE TABLE claims (id INT PRIMARY KEY)")
        .await
        .unwrap();
    let script = Script::new(&claim_and_ask, |()| "claim".into())
        .cut("lose", "worker", Cut::AfterCommit)
        .deliver("worker", "claim", ());
    let mut interleaving = Interleaving::new(&db).await.unwrap();
    let ran = interleaving
        .run(&db, script, "lose claim", |r| format!("{r:?}"))
        .await
        .unwrap();
    let (_, asked) = &ran.outcomes[0];
    assert_eq!(
        asked.as_deref().ok(),
        Some("committed"),
        "{}",
        interleaving.trace()
    );
}

/// `after every commit`: a run that counts the commits, then one run cut after each. The
/// handler commits twice (a statement outside a transaction, then a transaction), and each cut
/// leaves exactly what had committed by then.
#[tokio::test]
async fn every_commit_is_counted_and_a_run_is_cut_after_each() {
    async fn twice(pool: PgPool, (): ()) -> Result<(), sqlx::Error> {
        sqlx::query("INSERT INTO claims VALUES (1)")
            .execute(&pool)
            .await?;
        let mut tx = pool.begin().await?;
        sqlx::query("UPDATE accounts SET balance = balance + 1 WHERE id = 1")
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }
    // (the commit aimed at, what the handler returned, claims, balance, commits counted)
    let expected = [
        (None, true, 1, 1, 2),
        (Some(1), false, 1, 0, 1),
        (Some(2), false, 1, 1, 2),
    ];
    for (aimed, returned_ok, claims, balance, counted) in expected {
        let (db, session) = crate::accounts_and_claims().await;
        let script = Script::new(&twice, |()| "twice".into())
            .cut("every", "worker", Cut::AfterEveryCommit)
            .deliver("worker", "twice", ());
        let mut interleaving = Interleaving::new(&db).await.unwrap();
        let play = interleaving.run(&db, script, "every twice", |r| format!("{r:?}"));
        let (ran, commits) = kit::spec::at_commit(aimed, play).await;
        let ran = ran.unwrap();
        let row = (session.query_one(
            "SELECT (SELECT count(*) FROM claims), (SELECT balance FROM accounts WHERE id = 1)",
            &[],
        ))
        .await
        .unwrap();
        let trace = interleaving.trace().to_string();
        let seen = (
            ran.outcomes[0].1.is_ok(),
            row.get::<_, i64>(0),
            row.get::<_, i32>(1),
        );
        assert_eq!(
            seen,
            (returned_ok, claims, balance),
            "aimed at {aimed:?}\n{trace}"
        );
        assert_eq!(commits, counted, "aimed at {aimed:?}\n{trace}");
    }
}
