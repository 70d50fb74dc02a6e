//! Per-test databases: each test gets its own, with the schema applied, and none is left
//! behind once the test is over.

use kit::{Schema, TestDatabase};

fn schema_with(sql: &str) -> (tempfile::TempDir, Schema) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("0001_notes.sql"), sql).unwrap();
    let schema = Schema::from_dirs([dir.path()]);
    (dir, schema)
}

async fn databases_named(db: &TestDatabase, name: &str) -> i64 {
    let session = db.session().await.unwrap();
    let row = session
        .query_one(
            "SELECT count(*) FROM pg_database WHERE datname = $1",
            &[&name],
        )
        .await
        .unwrap();
    row.get(0)
}

#[tokio::test]
async fn two_tests_never_see_each_others_rows() {
    let (_dir, schema) = schema_with("CREATE TABLE notes (body TEXT NOT NULL);");
    let first = TestDatabase::create(&schema).await.unwrap();
    let second = TestDatabase::create(&schema).await.unwrap();

    let writer = first.session().await.unwrap();
    writer
        .execute("INSERT INTO notes VALUES ('only in the first')", &[])
        .await
        .unwrap();

    let reader = second.session().await.unwrap();
    let row = reader
        .query_one("SELECT count(*) FROM notes", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 0);
}

#[tokio::test]
async fn a_test_database_is_dropped_with_its_handle() {
    let (_dir, schema) = schema_with("CREATE TABLE notes (body TEXT NOT NULL);");
    let observer = TestDatabase::create(&schema).await.unwrap();
    let doomed = TestDatabase::create(&schema).await.unwrap();
    let name = doomed.name().to_string();
    assert_eq!(databases_named(&observer, &name).await, 1);

    drop(doomed);

    assert_eq!(databases_named(&observer, &name).await, 0);
}

#[tokio::test]
async fn a_migration_that_does_not_apply_names_its_file() {
    let (dir, schema) = schema_with("CREATE TABLE notes (body TEXT NOT NULL;");
    let error = TestDatabase::create(&schema)
        .await
        .err()
        .expect("a migration with a syntax error must not apply");
    let message = error.to_string();
    let file = dir.path().join("0001_notes.sql");
    assert!(message.contains(&file.display().to_string()), "{message}");
    assert!(message.contains("syntax error"), "{message}");
}

/// A killed test process cannot drop its databases; the next one drops them, and only those of
/// processes that are gone.
#[tokio::test]
async fn databases_of_a_killed_test_process_are_dropped_by_the_next() {
    let (_dir, schema) = schema_with("CREATE TABLE notes (body TEXT NOT NULL);");
    let ours = TestDatabase::create(&schema).await.unwrap();
    let mut ended = std::process::Command::new("true").spawn().unwrap();
    ended.wait().unwrap(); // its pid now belongs to no process
    let orphan = ours.name().replace(
        &format!("_{}_", std::process::id()),
        &format!("_{}_", ended.id()),
    );
    let session = ours.session().await.unwrap();
    session
        .batch_execute(&format!(r#"CREATE DATABASE "{orphan}""#))
        .await
        .unwrap();

    let url = kit::server().unwrap().url.clone();
    let mut admin = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    let dropped = kit::drop_leftovers(&mut admin).await.unwrap();

    assert!(dropped.contains(&orphan), "{dropped:?}");
    assert!(
        !dropped.iter().any(|name| name == ours.name()),
        "{dropped:?}"
    );
    assert_eq!(databases_named(&ours, &orphan).await, 0);
    assert_eq!(databases_named(&ours, ours.name()).await, 1);
}

/// The test's own sessions fail with the server's words and the SQLSTATE's meaning, never a
/// bare "db error": here, a table a migration took away.
#[tokio::test]
async fn a_failed_statement_of_the_tests_own_session_says_what_the_server_said() {
    let (_dir, schema) = schema_with("CREATE TABLE notes (body TEXT NOT NULL);");
    let db = TestDatabase::create(&schema).await.unwrap();
    let session = db.session().await.unwrap();
    let error = session
        .query("SELECT balance_cents FROM accounts", &[])
        .await
        .map_err(kit::KitError::observer("reading the balance"))
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with(
            "the test's own session failed while reading the balance: relation \"accounts\" \
             does not exist (SQLSTATE 42P01: a table the statement names does not exist"
        ),
        "{text}"
    );
    assert!(!text.contains("db error"), "{text}");
}
