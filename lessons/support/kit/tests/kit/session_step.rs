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

/// A deadlock played from a spec, as PostgreSQL's isolation tester plays one: s1 waits on s2,
/// then s2 on s1. s1's next step (its COMMIT) waits until its blocked UPDATE has finished,
/// which it does once the server breaks the deadlock; s2, whose `deadlock_timeout` (set in its
/// session's setup, on its own connection) runs out first, is always the one refused (40P01).
#[tokio::test]
async fn a_sessions_next_step_waits_for_its_blocked_step_and_the_server_breaks_the_deadlock() {
    let (db, _) = super::accounts_and_claims().await;
    let spec = kit::spec::Spec::parse(
        "setup { INSERT INTO accounts VALUES (2, 0) }
         session s1
         setup { SET deadlock_timeout = '10s' }
         step a1 { BEGIN; UPDATE accounts SET balance = 1 WHERE id = 1 }
         step b1 { UPDATE accounts SET balance = 1 WHERE id = 2 }
         step c1 { COMMIT }
         session s2
         setup { SET deadlock_timeout = '10ms' }
         step b2 { BEGIN; UPDATE accounts SET balance = 2 WHERE id = 2 }
         step a2 { UPDATE accounts SET balance = 2 WHERE id = 1 }
         step c2 { COMMIT }
         permutation a1 b2 b1 a2 c1 c2",
    )
    .unwrap();
    spec.set_up(&db).await.unwrap();
    let script = spec.sessions_script().unwrap();
    let mut interleaving = Interleaving::new(&db).await.unwrap();
    let order = spec.permutations[0].order();
    let ran = (interleaving.run(&db, script, &order, |()| String::new()))
        .await
        .unwrap();
    let trace = interleaving.trace().to_string();
    assert_eq!(
        ran.step("a2").as_ref().unwrap_err().code,
        "40P01",
        "{trace}"
    );
    assert_eq!(ran.step("b1"), &Ok(vec![]), "{trace}");
    // c1 ran after b1 had finished, never beside it.
    let finished: Vec<&str> = ran.steps().iter().map(|(step, _)| step.as_str()).collect();
    let freed = finished.iter().position(|s| *s == "b1");
    let commit = finished.iter().position(|s| *s == "c1");
    assert!(freed < commit, "{finished:?}: {trace}");
}

/// A session's setup runs on that session's own connection before the first step: the lock
/// the holder takes there is held when the delivery starts, so the delivery waits on it.
#[tokio::test]
async fn a_sessions_setup_holds_its_lock_from_the_start() {
    let (db, _) = super::accounts_and_claims().await;
    let spec = kit::spec::Spec::parse(
        "session holder
         setup { BEGIN; SELECT 1 FROM accounts WHERE id = 1 FOR UPDATE; }
         step commit { COMMIT }
         session worker
         step pay deliver {}
         permutation pay commit",
    )
    .unwrap();
    let handler = super::credit as fn(_, _) -> _;
    let script = (spec.script(&handler, |()| "a credit".into(), |_| Ok(()))).unwrap();
    let mut interleaving = Interleaving::new(&db).await.unwrap();
    let ran = (interleaving.run(&db, script, "pay commit", |r| format!("{r:?}")))
        .await
        .unwrap();
    let trace = interleaving.trace().to_string();
    assert!(ran.waited("worker"), "{trace}");
    assert!(
        trace.contains("holder: BEGIN; SELECT 1 FROM accounts"),
        "{trace}"
    );
}
