//! The spec format: what a file means, and every kind of bad file refused with its line.

use super::*;

const RACE: &str = r#"# Two deliveries of one event, the second while the first is inside its transaction.
setup { INSERT INTO accounts (id) VALUES ('acct-1') }

session holder
step lock   { BEGIN; SELECT 1 FROM accounts WHERE id = 'acct-1' FOR UPDATE }
step commit { COMMIT }

session worker-1
step first deliver {"event_id": "evt-1", "account_id": "acct-1", "amount_cents": 100}

session worker-2
step again deliver {"event_id": "evt-1", "account_id": "acct-1", "amount_cents": 100}

session script
step die kill worker-1
step lose cut worker-2 after commit
step every cut worker-2 after every commit
step later hook advance_clock 31s

permutation lock first again commit
expect exercise AppliedTwice "applied twice" evt-1
expect solution holds
permutation lock first die commit again
test the_first_delivery_dies_while_it_waits
story "was delivered twice,
       the first worker killed while it waited"
expect wait worker-1
expect no wait worker-2 for acct-2 on "acct-1's row"
"#;

#[test]
fn a_race_reads_as_its_sessions_steps_and_permutations() {
    let spec = Spec::parse(RACE).unwrap();
    assert_eq!(spec.setup, ["INSERT INTO accounts (id) VALUES ('acct-1')"]);
    let names: Vec<_> = spec.sessions.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["holder", "worker-1", "worker-2", "script"]);
    let (session, lock) = spec.step("lock").unwrap();
    assert_eq!((session.name.as_str(), lock.line), ("holder", 5));
    assert_eq!(
        lock.action,
        Action::Sql("BEGIN; SELECT 1 FROM accounts WHERE id = 'acct-1' FOR UPDATE".into())
    );
    assert_eq!(
        spec.step("first").unwrap().1.action,
        Action::Deliver(
            r#"{"event_id": "evt-1", "account_id": "acct-1", "amount_cents": 100}"#.into()
        )
    );
    assert_eq!(
        spec.step("die").unwrap().1.action,
        Action::Kill("worker-1".into())
    );
    assert_eq!(
        spec.cut_target("lose"),
        Some(("worker-2", Cut::AfterCommit))
    );
    assert_eq!(
        spec.step("later").unwrap().1.action,
        Action::Hook {
            name: "advance_clock".into(),
            arguments: vec!["31s".into()]
        }
    );
    let first = &spec.permutations[0];
    assert_eq!(first.steps, ["lock", "first", "again", "commit"]);
    assert_eq!(
        first.expect,
        [
            Expectation {
                side: Side::Exercise,
                verdict: Verdict::Fails("AppliedTwice".into()),
                words: vec!["applied twice".into(), "evt-1".into()],
            },
            Expectation {
                side: Side::Solution,
                verdict: Verdict::Holds,
                words: vec![],
            },
        ]
    );
    assert_eq!(spec.permutations[1].line, 23);
    assert!(spec.permutations[1].expect.is_empty());
    assert_eq!(
        spec.permutations[1].test.as_deref(),
        Some("the_first_delivery_dies_while_it_waits")
    );
    assert_eq!(
        spec.permutations[1].story.as_deref(),
        Some("was delivered twice, the first worker killed while it waited")
    );
    assert_eq!(spec.permutations[1].waits, ["worker-1"]);
    assert_eq!(
        spec.permutations[1].no_waits,
        [NoWait {
            session: "worker-2".into(),
            aggregate: "acct-2".into(),
            held: "acct-1's row".into(),
        }]
    );
    assert_eq!(first.test, None);
}

/// SQL that writes JSON, JSON that holds a brace in a string, and a block over several lines.
#[test]
fn braces_inside_quotes_do_not_end_a_block() {
    let spec = Spec::parse(
        r#"session writer
step write {
    -- the relay's row: don't mind the braces } in this comment
    INSERT INTO outbox (event_id, payload)
    VALUES ('ord-1:order', '{"order_id":"ord-1"}')
}
session relay
step odd deliver {"note": "a } in a string, and a \" too", "n": {"deep": 1}}
permutation write odd
"#,
    )
    .unwrap();
    assert_eq!(
        spec.step("write").unwrap().1.action,
        Action::Sql(
            "\n    -- the relay's row: don't mind the braces } in this comment\n    INSERT INTO \
             outbox (event_id, payload)\n    VALUES ('ord-1:order', '{\"order_id\":\"ord-1\"}')\n"
                .into()
        )
    );
    assert_eq!(
        spec.step("odd").unwrap().1.action,
        Action::Deliver(r#"{"note": "a } in a string, and a \" too", "n": {"deep": 1}}"#.into())
    );
}

const RELEASED: &str = r#"session worker
step credit deliver {"id": "evt-{round}", "account": "acc-{round}"}

permutation credit
barrier 8 workers, 60 rounds
test eight
"#;

#[test]
fn a_released_permutation_reads_as_its_workers_and_rounds_and_templates_its_event() {
    let spec = Spec::parse(RELEASED).unwrap();
    let permutation = &spec.permutations[0];
    let barrier = Barrier {
        workers: 8,
        rounds: 60,
    };
    assert_eq!(permutation.barrier, Some(barrier));
    assert_eq!(
        spec.released_deliveries(permutation, 3),
        [r#"{"id": "evt-3", "account": "acc-3"}"#]
    );
    let one = RELEASED.replace("60 rounds", "1 round");
    let barrier = Barrier {
        workers: 8,
        rounds: 1,
    };
    assert_eq!(
        Spec::parse(&one).unwrap().permutations[0].barrier,
        Some(barrier)
    );
}

#[test]
fn a_released_permutation_of_several_deliveries_hands_them_out_in_its_order() {
    let two = RELEASED.replace(
        "permutation credit",
        "session other\nstep debit deliver {\"id\": \"evt-{round}-b\"}\n\npermutation debit credit",
    );
    let spec = Spec::parse(&two).unwrap();
    assert_eq!(
        spec.released_deliveries(&spec.permutations[0], 7),
        [
            r#"{"id": "evt-7-b"}"#,
            r#"{"id": "evt-7", "account": "acc-7"}"#
        ]
    );
}

#[test]
fn a_barrier_that_cannot_be_played_as_written_is_refused_with_its_line() {
    let head = "session worker\nstep credit deliver {}\nsession other\nstep sql { SELECT 1 }\n";
    let cases: &[(&str, usize, &str)] = &[
        (
            "barrier 8 workers\n",
            6,
            "reads `barrier N workers, R rounds`",
        ),
        (
            "barrier 1 workers, 60 rounds\n",
            6,
            "one worker races no one",
        ),
        ("barrier 2 workers, 0 rounds\n", 6, "1 round or more"),
        (
            "barrier 2 workers, 9 rounds\nbarrier 2 workers, 9 rounds\n",
            7,
            "a second `barrier`",
        ),
    ];
    for (tail, line, words) in cases {
        let error = refused(&format!("{head}permutation credit\n{tail}"));
        assert_eq!(
            (error.line, error.message.contains(words)),
            (*line, true),
            "{error}"
        );
    }
    let error = refused(&format!("{head}barrier 2 workers, 9 rounds\n"));
    assert!(
        error.message.contains("before any `permutation`"),
        "{error}"
    );
    let plays: &[(&str, &str)] = &[
        ("permutation credit sql\n", "names `deliver` steps only"),
        (
            "permutation credit\nexpect wait worker\n",
            "judge a scripted order",
        ),
        (
            "permutation credit\nstory \"was released\"\n",
            "takes no `story`",
        ),
    ];
    for (permutation, words) in plays {
        let error = refused(&format!("{head}{permutation}barrier 2 workers, 9 rounds\n"));
        assert_eq!(
            (error.line, error.message.contains(words)),
            (5, true),
            "{error}"
        );
    }
}

fn refused(text: &str) -> SpecError {
    Spec::parse(text).expect_err("a bad spec is refused")
}

#[test]
fn each_kind_of_bad_file_is_refused_with_its_line() {
    let cases: &[(&str, usize, &str)] = &[
        (
            "session a\nstep s { SELECT 1 }\npermute s\n",
            3,
            "`permute` is not a keyword",
        ),
        (
            "step s { SELECT 1 }\npermutation s\n",
            1,
            "comes before any `session`",
        ),
        (
            "session a\nstep s { SELECT 1\npermutation s\n",
            2,
            "never closed",
        ),
        (
            "session a\nstep s\npermutation s\n",
            2,
            "says nothing it does",
        ),
        (
            "session a\nstep s sleep 1\npermutation s\n",
            2,
            "`sleep` is not a kind of step",
        ),
        (
            "session a\nstep s deliver\npermutation s\n",
            2,
            "delivers nothing",
        ),
        (
            "session a\nstep s { SELECT 1 }\nsession b\nstep s { SELECT 2 }\npermutation s\n",
            4,
            "named twice (first on line 2)",
        ),
        (
            "session a\nstep s { SELECT 1 }\nsession a\npermutation s\n",
            3,
            "session `a` is named twice",
        ),
        (
            "session a\nstep s { SELECT 1 }\nstep k kill b\npermutation s\n",
            3,
            "names no session `b`",
        ),
        (
            "session a\nstep s { SELECT 1 }\nstep k kill a\npermutation s\n",
            3,
            "which delivers nothing",
        ),
        (
            "session a\nstep s { SELECT 1 }\n\npermutation s t\n",
            4,
            "names `t`, which no session has",
        ),
        ("session w\nstep d deliver {}\n", 1, "no permutation"),
        (
            "session a\nstep s { SELECT 1 }\nexpect solution holds\n",
            3,
            "before any `permutation`",
        ),
        (
            "session a\nstep s { SELECT 1 }\npermutation s\nexpect teacher holds\n",
            4,
            "`exercise` or `solution`",
        ),
        (
            "session a\nstep s { SELECT 1 }\npermutation s\nexpect solution\n",
            4,
            "needs a verdict",
        ),
        (
            "session a\nstep s { SELECT 1 }\npermutation s\nexpect solution holds \"fine\"\n",
            4,
            "takes no words",
        ),
        (
            "session a\nstep s { SELECT 1 }\npermutation s\nexpect exercise Lost \"open\n",
            4,
            "never closed with",
        ),
        (
            "session a\nstep s { SELECT 1 }\npermutation\n",
            3,
            "at least one step",
        ),
        (
            "session w\nstep d deliver {}\npermutation d d\n",
            3,
            "names `d` twice",
        ),
        (
            "session a\nstep s { SELECT 1 }\nsetup { SELECT 2 }\npermutation s\n",
            3,
            "a `setup` after the steps of session `a`",
        ),
        (
            "session a\nteardown { SELECT 2 }\nstep s { SELECT 1 }\npermutation s\n",
            2,
            "a `teardown` before any step of session `a`",
        ),
        (
            "session a\nstep s { SELECT 1 }\nteardown { SELECT 2 }\nstep t { SELECT 3 }\n",
            4,
            "comes after the teardown of session `a`",
        ),
        (
            "teardown { SELECT 1 }\nteardown { SELECT 2 }\nsession a\nstep s { SELECT 1 }\n",
            2,
            "a second `teardown`",
        ),
        (
            "session w\nsetup { SET x = 1 }\nstep d deliver {}\npermutation d\n",
            1,
            "a delivering session's connection is its handler's",
        ),
        (
            "session w\nstep d deliver {}\npermutation d(*)\n",
            3,
            "`d` carries a marker",
        ),
        (
            "session a\nstep s { SELECT 1 }\nsession b\nstep t { SELECT 2 }\nstep u { SELECT 3 }\n\
             permutation s(u) t\n",
            6,
            "names `u`, which this permutation does not play",
        ),
        (
            "session a\nstep s { SELECT 1 }\nstep t { SELECT 2 }\npermutation s(t) t\n",
            4,
            "a step of its own session",
        ),
        (
            "session a\nstep s { SELECT 1 }\npermutation s(*\n",
            3,
            "closed with `)`",
        ),
        (
            "session a\nstep s { SELECT 1 }\npermutation s(x notices)\n",
            3,
            "takes a number of notices",
        ),
        (
            "session \"a\nstep s { SELECT 1 }\n",
            1,
            "runs past its line",
        ),
        (
            "session step\nstep s { SELECT 1 }\n",
            1,
            "`step` is a keyword: a session of that name is written in double quotes",
        ),
        (
            "session w\nstep d deliver {}\npermutation d\ntest t\npermutation d\ntest t\n",
            5,
            "the test `t` plays two permutations (first on line 3)",
        ),
        (
            "session w\nstep d deliver {}\nsession v\nstep e deliver {}\npermutation d\nexpect wait v\n",
            5,
            "expects `v` to wait, but plays no delivery of `v`",
        ),
        (
            "session w\nstep d deliver {}\nsession v\nstep e deliver {}\npermutation d\n\
             expect no wait v for ord-2 on \"ord-1's row\"\n",
            5,
            "expects `v` not to wait, but plays no delivery of `v`",
        ),
        (
            "session w\nstep d deliver {}\npermutation d\nexpect no wait w on ord-1\n",
            4,
            "reads `expect no wait SESSION for AGGREGATE on",
        ),
        (
            "session w\nstep d deliver {}\npermutation d\nstory one two\n",
            4,
            "one sentence, in double quotes",
        ),
        (
            "session w\nstep d deliver {}\ntest t\n",
            3,
            "`test` comes before any `permutation`",
        ),
        (
            "session w\nstep d deliver {}\nstep e deliver {}\npermutation d e\n",
            3,
            "delivers twice (first on line 2)",
        ),
        (
            "session w\nstep d deliver {}\nsession s\nstep k kill w\npermutation k d\n",
            5,
            "plays `k` before `w` delivers anything",
        ),
        (
            "session w\nstep d deliver {}\nsession s\nstep c cut w during commit\npermutation c d\n",
            4,
            "`cut w` is followed by `before commit`, `before commit held open`, `after commit` or \
             `after every commit`, not `during commit`",
        ),
        (
            "session w\nstep d deliver {}\nsession s\nstep c cut w after commit\npermutation d c\n",
            5,
            "plays `c` after `w` delivers: a cut or a pause is set before the delivery",
        ),
        (
            "session w\nstep d deliver {}\nsession s\nstep p pause w before commit\npermutation p d\n",
            4,
            "`pause w` is followed by `after commit`, not `before commit`",
        ),
        (
            "session w\nstep d deliver {}\nsession s\nstep p pause w after commit\nstep r resume w\n\
             permutation p d\n",
            6,
            "pauses `w` (step `p`) and never resumes it",
        ),
        (
            "session w\nstep d deliver {}\nsession s\nstep p pause w after commit\nstep r resume w\n\
             permutation p r d\n",
            6,
            "plays `r` before `w` delivers anything",
        ),
        (
            "session w\nstep d { SELECT 1 }\nstep c cut w before commit\npermutation c d\n",
            3,
            "aims at `w`, which delivers nothing",
        ),
    ];
    for (text, line, words) in cases {
        let error = refused(text);
        assert_eq!(error.line, *line, "{text:?}: {error}");
        assert!(error.message.contains(words), "{text:?}: {error}");
    }
}

#[test]
fn an_error_says_its_line_first() {
    let error = refused("session a\nstep s { SELECT 1 }\npermutation s t\n");
    assert_eq!(
        error.to_string(),
        "line 3: the permutation names `t`, which no session has (its steps: s)"
    );
}

/// Made into a script, a delivery the lesson cannot read and a hook it does not supply are
/// refused with their lines, before anything runs.
#[test]
fn a_delivery_the_lesson_refuses_and_a_missing_hook_are_refused_with_their_lines() {
    fn nothing(_: sqlx::PgPool, (): ()) -> std::future::Ready<()> {
        std::future::ready(())
    }
    let refusal = |text: &str| {
        let spec = Spec::parse(text).unwrap();
        let made = spec.script(
            &(nothing as crate::NoDelivery),
            |()| String::new(),
            |_| Err("no such account".to_string()),
        );
        made.err().map(|e| e.to_string())
    };
    assert_eq!(
        refusal("session w\nstep d deliver {\"id\": 1}\npermutation d\n").as_deref(),
        Some("line 2: step `d` delivers what the lesson refuses: no such account")
    );
    assert_eq!(
        refusal("session s\nstep h hook move_clock 30s\npermutation h\n").as_deref(),
        Some("line 2: step `h` runs the hook `move_clock`, which this lesson does not supply")
    );
    assert_eq!(
        refusal("session s\nstep q { SELECT 1 }\npermutation q\n"),
        None
    );
}

#[test]
fn a_spec_of_sessions_only_is_a_script_and_a_delivery_in_one_is_refused() {
    let sessions = "session s1\nstep b1 { BEGIN }\nstep w1 { UPDATE t SET v = 1 }\n\n\
                    session s2\nstep w2 { UPDATE t SET v = 2 }\n\npermutation b1 w1 w2\n";
    assert!(Spec::parse(sessions).unwrap().sessions_script().is_ok());
    let error = Spec::parse(RACE).unwrap().sessions_script().err().unwrap();
    assert_eq!(error.line, 9, "{error}");
    assert!(error.message.contains("`first` is not SQL"), "{error}");
}

/// PostgreSQL's isolation tester's own grammar, as its specs use it: several setups and a
/// teardown, a session's setup and teardown, quoted names, braces on the next line, a
/// permutation over several lines with markers, and a spec with no permutation.
#[test]
fn the_isolation_testers_grammar_reads_as_it_does() {
    let spec = Spec::parse(
        r#"setup
{
  CREATE TABLE t (k int PRIMARY KEY);
}
setup { VACUUM t; }
teardown { DROP TABLE t; }

session "s 1"
setup		{ BEGIN ISOLATION LEVEL SERIALIZABLE; }
step "r""1"	{ SELECT * FROM t; }
step w1
{
  INSERT INTO t VALUES (1);
}
teardown	{ COMMIT; }

session s2
step w2 { INSERT INTO t VALUES (1); }
step c2 { COMMIT; }

permutation "r""1" w2(*)
  w1(w2, w2 notices 2)   # a comment between the steps
  c2
permutation w2 c2 "r""1" w1
"#,
    )
    .unwrap();
    assert_eq!(
        spec.setup,
        ["\n  CREATE TABLE t (k int PRIMARY KEY);\n", "VACUUM t;"]
    );
    assert_eq!(spec.teardown.as_deref(), Some("DROP TABLE t;"));
    let first = &spec.sessions[0];
    assert_eq!(first.name, "s 1");
    assert_eq!(
        first.setup.as_deref(),
        Some("BEGIN ISOLATION LEVEL SERIALIZABLE;")
    );
    assert_eq!(first.teardown.as_deref(), Some("COMMIT;"));
    assert_eq!(first.steps[0].name, "r\"1");
    assert_eq!(
        first.steps[1].action,
        Action::Sql("\n  INSERT INTO t VALUES (1);\n".into())
    );
    assert_eq!(spec.permutations.len(), 2);
    let marked = &spec.permutations[0];
    assert_eq!(marked.steps, ["r\"1", "w2", "w1", "c2"]);
    assert_eq!(
        marked.markers,
        [
            vec![],
            vec![Marker::Once],
            vec![Marker::After("w2".into()), Marker::Notices("w2".into(), 2)],
            vec![],
        ]
    );
    assert!(spec.is_sessions_only());
}

/// With no permutation line, a spec of sessions only plays every interleaving, in the
/// isolation tester's order: the first session's next step first.
#[test]
fn no_permutation_is_every_interleaving_in_the_testers_order() {
    let spec = Spec::parse(
        "session a\nstep a1 { SELECT 1 }\nstep a2 { SELECT 2 }\nsession b\nstep b1 { SELECT 3 }\n",
    )
    .unwrap();
    assert!(spec.permutations.is_empty());
    let orders: Vec<String> = spec.orders().iter().map(|o| o.join(" ")).collect();
    assert_eq!(orders, ["a1 a2 b1", "a1 b1 a2", "b1 a1 a2"]);
}
