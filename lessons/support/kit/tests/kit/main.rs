//! The kit's promises, checked for real: a server found or started, a database per test,
//! barriers, a deadline for a test that never ends, and nothing left behind by a test process
//! that dies; the engine's isolation tester against PostgreSQL's own; the harness's list of a
//! lesson's tests. One test binary, not six: each links the whole database stack.

mod abandon;
mod barrier;
mod cleanup;
mod cut;
mod database;
mod deadline;
mod dev_database;
mod floors;
mod harness;
mod isolation_tester;
mod pause;
mod session_step;
mod statements;

/// A database with account 1 at zero and an empty `claims` table, and a session of the test's
/// own on it: what the abandon and cut tests credit and claim.
async fn accounts_and_claims() -> (kit::TestDatabase, tokio_postgres::Client) {
    let schema = kit::Schema::from_dirs(Vec::<std::path::PathBuf>::new());
    let db = kit::TestDatabase::create(&schema).await.unwrap();
    let session = db.session().await.unwrap();
    session
        .batch_execute(
            "CREATE TABLE accounts (id INT PRIMARY KEY, balance INT);
             CREATE TABLE claims (id INT PRIMARY KEY);
             INSERT INTO accounts VALUES (1, 0)",
        )
        .await
        .unwrap();
    (db, session)
}

/// Credits account 1 and records the claim in one transaction: a handler for the tests that
/// cut or record a worker's connection.
async fn credit(pool: sqlx::PgPool, (): ()) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("INSERT INTO claims VALUES (1)")
        .execute(&mut *tx)
        .await?;
    sqlx::query("UPDATE accounts SET balance = balance + 1 WHERE id = 1")
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}
