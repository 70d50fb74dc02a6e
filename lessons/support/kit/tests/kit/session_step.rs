//! Session steps that wait and fail: the lost update played at each isolation level, where
//! the second writer waits on the first, then overwrites (READ COMMITTED) or is aborted with
//! 40001 (REPEATABLE READ, SERIALIZABLE). What each level did is the step's recorded result.

use kit::{Interleaving, Schema, Script, TestDatabase};

async fn lost_update(level: &str) -> (kit::Ran<()>, String, i32) {
    let db = TestDatabase::create(&Schema::from_dirs(Vec::<std::path::PathBuf>::new()))
        .await
        .unwrap();
    let setup = db.session().await.unwrap();
    (setup.batch_execute(
        "CREATE TABLE counters (id INT PRIMARY KEY, n INT); INSERT INTO counters VALUES (1, 0)",
    ))
    .await
    .unwrap();
    let begin = format!("BEGIN ISOLATION LEVEL {level}");
    let script = Script::sessions()
        .step("s1", "b1", &begin)
        .step("s2", "b2", &begin)
        .step("s1", "r1", "SELECT n FROM counters WHERE id = 1")
        .step("s2", "r2", "SELECT n FROM counters WHERE id = 1")
        .step("s1", "w1", "UPDATE counters SET n = 1 WHERE id = 1")
        .step("s2", "w2", "UPDATE counters SET n = 1 WHERE id = 1")
        .step("s1", "c1", "COMMIT")
        .step("s2", "c2", "COMMIT");
    let mut interleaving = Interleaving::new(&db).await.unwrap();
    let ran = (interleaving.run(&db, script, "b1 b2 r1 r2 w1 w2 c1 c2", |()| String::new()))
        .await
        .unwrap();
    let n: i32 = (setup.query_one("SELECT n FROM counters WHERE id = 1", &[]))
        .await
        .unwrap()
        .get(0);
    (ran, interleaving.trace().to_string(), n)
}

#[tokio::test]
async fn at_read_committed_the_second_writer_waits_then_overwrites() {
    let (ran, trace, n) = lost_update("READ COMMITTED").await;
    assert_eq!(ran.step("w2"), &Ok(vec![]), "{trace}");
    assert_eq!(ran.step("r2"), &Ok(vec![vec![Some("0".into())]]), "{trace}");
    assert_eq!(n, 1, "two increments, one left: {trace}");
    assert!(
        trace.contains("s2: UPDATE counters SET n = 1 WHERE id = 1 <waiting on s1>"),
        "{trace}"
    );
    // The wait ends at s1's commit, and the trace shows it there.
    let lines: Vec<&str> = trace.lines().collect();
    let commit = lines
        .iter()
        .position(|l| l.ends_with("s1: COMMIT"))
        .unwrap();
    assert_eq!(lines[commit + 1].trim(), "s2: <done>", "{trace}");
}

#[tokio::test]
async fn at_repeatable_read_and_serializable_the_second_writer_fails_with_40001() {
    for level in ["REPEATABLE READ", "SERIALIZABLE"] {
        let (ran, trace, _) = lost_update(level).await;
        let error = ran.step("w2").as_ref().unwrap_err();
        assert_eq!(error.code, "40001", "{level}: {trace}");
        assert!(
            trace.contains("s2: <done> <error 40001: could not serialize access due to concurrent"),
            "{trace}"
        );
        // COMMIT of an aborted transaction rolls it back, without an error.
        assert_eq!(ran.step("c2"), &Ok(vec![]), "{trace}");
    }
}
