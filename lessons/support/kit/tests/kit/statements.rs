//! The statement-level trace a recording relay makes: every statement each session sent, its
//! parameters, what the server answered, where the transaction stood, and which statement
//! waited on whom.

use kit::Statements;

/// The application names of the sessions `waiter` waits on, once the server says it waits on
/// any (it always will in these tests: nothing else runs).
async fn blockers_once_waiting(session: &tokio_postgres::Client, waiter: &str) -> Vec<String> {
    loop {
        let on: Vec<String> = session
            .query(
                "SELECT b.application_name FROM pg_stat_activity w
                   JOIN pg_stat_activity b ON b.pid = ANY (pg_blocking_pids(w.pid))
                  WHERE w.application_name = $1",
                &[&waiter],
            )
            .await
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect();
        if !on.is_empty() {
            return on;
        }
        tokio::task::yield_now().await;
    }
}

/// Two workers insert the same claim: the second waits on the first's open transaction, and
/// fails with a unique violation once the first commits.
#[tokio::test]
async fn each_statement_is_traced_with_its_parameters_its_wait_and_its_answer() {
    let (db, session) = crate::accounts_and_claims().await;
    let statements = Statements::new();
    let (first, _r1) = db.pool_recorded(1, "worker-1", &statements).await.unwrap();
    let (second, _r2) = db.pool_recorded(1, "worker-2", &statements).await.unwrap();
    let mut tx = first.begin().await.unwrap();
    sqlx::query("INSERT INTO claims VALUES ($1)")
        .bind(1_i32)
        .execute(&mut *tx)
        .await
        .unwrap();
    let waiting = tokio::spawn(async move {
        sqlx::query("INSERT INTO claims VALUES ($1)")
            .bind(1_i32)
            .execute(&second)
            .await
    });
    let on = blockers_once_waiting(&session, "worker-2").await;
    statements.waiting("worker-2", &on);
    tx.commit().await.unwrap();
    let failed = waiting.await.unwrap().unwrap_err();
    assert_eq!(
        failed.as_database_error().and_then(|e| e.code()).as_deref(),
        Some("23505")
    );
    assert_eq!(
        statements.to_string(),
        // With no script to order them, the two sessions ran at once: each one's statements
        // in order, the sessions by name.
        "  1 worker-1: BEGIN → BEGIN (transaction open)\n\
         \x20 2 worker-1: INSERT INTO claims VALUES ($1) [$1 = 1] → INSERT 0 1\n\
         \x20 3 worker-1: COMMIT → COMMIT (transaction over)\n\
         \x20 4 worker-2: INSERT INTO claims VALUES ($1) [$1 = 1] <waited on worker-1> → error \
         23505\n"
    );
}

/// A script played while its statements are recorded: the holder's, as the script ran them,
/// and the worker's, off the wire, in the order sent, with the wait on the statement that
/// waited. The coarse trace is the same as without recording.
#[tokio::test]
async fn a_played_script_records_the_scripted_sessions_and_the_workers_statements() {
    let (db, _session) = crate::accounts_and_claims().await;
    let script = kit::Script::new(&crate::credit, |()| "credit".into())
        .sql(
            "holder",
            "lock",
            "BEGIN; SELECT 1 FROM accounts WHERE id = 1 FOR UPDATE",
        )
        .sql("holder", "release", "COMMIT")
        .deliver("worker", "credit", ());
    let mut interleaving = kit::Interleaving::new(&db).await.unwrap();
    let statements = interleaving.record();
    interleaving
        .run(&db, script, "lock credit release", |r| format!("{r:?}"))
        .await
        .unwrap();
    assert_eq!(
        statements.to_string(),
        "  1 holder: BEGIN; SELECT 1 FROM accounts WHERE id = 1 FOR UPDATE → ok\n\
         \x20 2 worker: BEGIN → BEGIN (transaction open)\n\
         \x20 3 worker: INSERT INTO claims VALUES (1) → INSERT 0 1\n\
         \x20 4 worker: UPDATE accounts SET balance = balance + 1 WHERE id = 1 <waited on \
         holder> → UPDATE 1\n\
         \x20 5 holder: COMMIT → ok\n\
         \x20 6 worker: COMMIT → COMMIT (transaction over)\n"
    );
    assert_eq!(
        interleaving.trace().to_string(),
        "   holder: BEGIN; SELECT 1 FROM accounts WHERE id = 1 FOR UPDATE\n\
         \x20  worker: credit <waiting on holder>\n\
         \x20  holder: COMMIT\n\
         \x20  worker: <done> Ok(())\n"
    );
}

/// A statement fails, or waits, before it runs: while the server prepares it. A table that
/// does not exist fails the Parse (42P01), and an `INSERT` prepared while another session holds
/// `LOCK TABLE … IN SHARE MODE` waits there for the table's lock, before its parameters are
/// ever bound. Both are steps of the trace; a statement prepared and then run is one step.
#[tokio::test]
async fn a_statement_that_fails_or_waits_as_it_is_prepared_is_traced() {
    let (db, session) = crate::accounts_and_claims().await;
    let statements = Statements::new();
    let (pool, _relay) = db.pool_recorded(1, "worker", &statements).await.unwrap();
    let missing = sqlx::query("INSERT INTO no_such_table VALUES ($1)")
        .bind(1_i32)
        .execute(&pool)
        .await
        .unwrap_err();
    assert_eq!(
        missing
            .as_database_error()
            .and_then(|e| e.code())
            .as_deref(),
        Some("42P01")
    );
    session
        .batch_execute("BEGIN; LOCK TABLE claims IN SHARE MODE")
        .await
        .unwrap();
    let waiting = tokio::spawn(async move {
        sqlx::query("INSERT INTO claims VALUES ($1)")
            .bind(2_i32)
            .execute(&pool)
            .await
    });
    blockers_once_waiting(&session, "worker").await;
    statements.waiting("worker", &["holder".to_string()]);
    session.batch_execute("COMMIT").await.unwrap();
    waiting.await.unwrap().unwrap();
    assert_eq!(
        statements.to_string(),
        "  1 worker: INSERT INTO no_such_table VALUES ($1) → error 42P01\n\
         \x20 2 worker: INSERT INTO claims VALUES ($1) [$1 = 2] <waited on holder> → INSERT 0 1\n"
    );
}
