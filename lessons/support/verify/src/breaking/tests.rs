//! `break` itself: each lesson's own forced specs expose its race; a harmless schedule, one that
//! cannot finish and one that expects what no handler does are each told apart, with the
//! reason; and each kind of bad file is refused with its line.

use super::*;

fn lesson(number: &str) -> &'static Breakable {
    BREAKABLE.iter().find(|b| b.number == number).unwrap()
}

async fn played(number: &str, text: &str) -> Vec<Played> {
    let lesson = lesson(number);
    let spec = read(lesson, text).unwrap_or_else(|e| panic!("{e}"));
    play(lesson, &spec).await
}

const CREDIT: &str = r#"{"id": "evt-1", "account": "acc-1", "amount_cents": 100}"#;

#[tokio::test]
async fn each_lessons_own_race_specs_expose_its_race() {
    let specs = [
        (
            "01",
            include_str!("../../../../01-check-then-act/specs/forced.spec"),
        ),
        (
            "06",
            include_str!("../../../../06-deterministic-ids/specs/forced.spec"),
        ),
        (
            "06",
            include_str!("../../../../06-deterministic-ids/specs/failed.spec"),
        ),
        (
            "07",
            include_str!("../../../../07-at-least-once/specs/forced.spec"),
        ),
        (
            "07",
            include_str!("../../../../07-at-least-once/specs/failed.spec"),
        ),
        (
            "08",
            include_str!("../../../../08-outbox-relay/specs/late-commit.spec"),
        ),
        (
            "08",
            include_str!("../../../../08-outbox-relay/specs/relay-crash.spec"),
        ),
        (
            "08",
            include_str!("../../../../08-outbox-relay/specs/consumers.spec"),
        ),
        (
            "10",
            include_str!("../../../../10-compensation/specs/duplicate.spec"),
        ),
        (
            "11",
            include_str!("../../../../11-http-keys/specs/retry.spec"),
        ),
        (
            "11",
            include_str!("../../../../11-http-keys/specs/another-request.spec"),
        ),
        (
            "10",
            include_str!("../../../../10-compensation/specs/contradicting.spec"),
        ),
        (
            "13",
            include_str!("../../../../13-serializable-retry/specs/write_skew.spec"),
        ),
        (
            "13",
            include_str!("../../../../13-serializable-retry/specs/lost_update.spec"),
        ),
    ];
    for (number, text) in specs {
        let played = played(number, text).await;
        // Every permutation the spec expects the exercise to fail exposes the race (a crash
        // the exercise survives is in a spec too: lesson 06's death during the charge).
        assert!(played.iter().any(Played::exposes), "{number}: {played:#?}");
        let report = report(number, &played, &[]);
        assert!(report.contains("✓ Your spec exposes the race"), "{report}");
        assert!(report.contains("your `expect exercise"), "{report}");
        assert!(!report.contains("not met"), "{report}");
    }
}

/// Each lesson's starting spec (`specs/your-turn.spec`) is harmless as shipped: both sides
/// pass, and the report says so, with what the exercise did.
#[tokio::test]
async fn a_harmless_schedule_is_refused_with_its_reason() {
    let specs = [
        (
            "01",
            include_str!("../../../../01-check-then-act/specs/your-turn.spec"),
            "worker-2: <done> AlreadyApplied",
        ),
        (
            "06",
            include_str!("../../../../06-deterministic-ids/specs/your-turn.spec"),
            "worker-2: <done> AlreadyApplied",
        ),
        (
            "07",
            include_str!("../../../../07-at-least-once/specs/your-turn.spec"),
            "worker-2: <done> Polled { handled: 1 }",
        ),
        (
            "08",
            include_str!("../../../../08-outbox-relay/specs/your-turn.spec"),
            "relay-2: <done> Relayed(0)",
        ),
        (
            "10",
            include_str!("../../../../10-compensation/specs/your-turn.spec"),
            "worker-2: <done> AlreadySettled",
        ),
        (
            "11",
            include_str!("../../../../11-http-keys/specs/your-turn.spec"),
            "api-2: <done> 201 (replayed)",
        ),
        (
            "13",
            include_str!("../../../../13-serializable-retry/specs/your-turn.spec"),
            "worker: <done> Declined after 1 attempt(s)",
        ),
    ];
    let saga = include_str!("../../../../order-saga/specs/your-turn.spec");
    let specs = (specs.into_iter()).chain(
        ["02", "03", "04", "05"].map(|number| (number, saga, "worker-2: <done> AlreadyApplied")),
    );
    for (number, text, did) in specs {
        let played = played(number, text).await;
        assert!(!played[0].exposes(), "{number}: {played:#?}");
        let report = report(number, &played, &[]);
        assert!(report.contains("both passed"), "{report}");
        assert!(report.contains(did), "{report}");
        assert!(
            report.contains("✗ Your spec does not expose the race yet"),
            "{report}"
        );
    }
}

/// Lessons 02 to 05 share the order saga's specs, which say nothing of any one lesson's exercise:
/// each lesson's race is in them all the same, and `break NN` finds it with that lesson's reason.
#[tokio::test]
async fn the_order_sagas_specs_expose_each_lessons_race() {
    let duplicate = include_str!("../../../../order-saga/specs/duplicate.spec");
    let contradicting = include_str!("../../../../order-saga/specs/contradicting.spec");
    for (number, text) in [
        ("02", duplicate),
        ("03", duplicate),
        ("04", contradicting),
        ("05", duplicate),
    ] {
        let played = played(number, text).await;
        assert!(played.iter().any(Played::exposes), "{number}: {played:#?}");
        let report = report(number, &played, &[]);
        assert!(report.contains("✓ Your spec exposes the race"), "{report}");
    }
}

#[tokio::test]
async fn a_schedule_that_leaves_a_delivery_waiting_could_not_finish() {
    let text = format!(
        "session holder\nstep lock {{ BEGIN; SELECT 1 FROM accounts WHERE id = 'acc-1' FOR UPDATE }}\n\
         step commit {{ COMMIT }}\n\
         session worker-1\nstep first deliver {CREDIT}\npermutation lock first\n"
    );
    let played = played("01", &text).await;
    let report = report("01", &played, &["commit".into()]);
    assert!(
        report.contains("could not finish: the permutation ended while worker-1 waited on a lock that holder holds"),
        "{report}"
    );
    assert!(
        report.contains("step `commit` is in no permutation"),
        "{report}"
    );
}

/// A scripted session that waits on another one would wait for ever: refused at once, naming
/// both.
#[tokio::test]
async fn a_scripted_step_that_waits_could_not_finish() {
    let lock = "BEGIN; SELECT 1 FROM accounts WHERE id = 'acc-1' FOR UPDATE";
    let text = format!(
        "session a\nstep la {{ {lock} }}\nsession b\nstep lb {{ {lock} }}\n\
         session worker-1\nstep first deliver {CREDIT}\npermutation la lb first\n"
    );
    let played = played("01", &text).await;
    let report = report("01", &played, &[]);
    assert!(report.contains("b's step `BEGIN;"), "{report}");
    assert!(report.contains("waits on a lock that a holds"), "{report}");
}

/// A kill aimed at a delivery that has returned never happens, and the report says so; a setup
/// that records the event first makes the solution fail too: a wrong expectation.
#[tokio::test]
async fn a_fault_too_late_and_a_wrong_expectation_are_told_apart() {
    let text = format!(
        "session worker-1\nstep first deliver {CREDIT}\nsession crash\nstep die kill worker-1\n\
         permutation first die\n"
    );
    let late = report("01", &played("01", &text).await, &[]);
    assert!(
        late.contains("step `die` never ran: worker-1 had already returned"),
        "{late}"
    );
    let text = format!(
        "setup {{ INSERT INTO processed_events (event_id) VALUES ('evt-1') }}\n\
         session worker-1\nstep first deliver {CREDIT}\npermutation first\n"
    );
    let report = report("01", &played("01", &text).await, &[]);
    assert!(report.contains("the solution fails it too"), "{report}");
    assert!(
        report.contains("a wrong expectation, not a race"),
        "{report}"
    );
}

#[test]
fn each_kind_of_bad_file_is_refused_with_its_line() {
    let cases: &[(&str, &str, usize, &str)] = &[
        (
            "01",
            "session w\nstep s { SELECT 1\npermutation s\n",
            2,
            "never closed",
        ),
        (
            "01",
            "session w\nstep s { SELECT 1 }\npermutation t\n",
            3,
            "names `t`",
        ),
        (
            "01",
            "session w\nstep d deliver {\"id\": \"evt-1\"}\npermutation d\n",
            2,
            "w delivers what lesson 01 refuses",
        ),
        (
            "01",
            "session w\nstep d deliver {\"id\": \"evt-1\", \"account\": \"acc-1\", \"amount_cents\": 100}\n\
             session v\nstep e deliver {\"id\": \"evt-2\", \"account\": \"acc-1\", \"amount_cents\": 100}\n\
             session u\nstep f deliver {\"id\": \"evt-1\", \"account\": \"acc-1\", \"amount_cents\": 100}\n\
             permutation d e f\n",
            6,
            "only when each is delivered once",
        ),
        (
            "01",
            "session w\nstep d deliver {\"id\": \"evt-1\", \"account\": \"acc-1\", \"amount_cents\": 100}\n\
             session v\nstep e deliver {\"id\": \"evt-2\", \"account\": \"acc-1\", \"amount_cents\": 100}\n\
             permutation d e\nbarrier 2 workers, 9 rounds\n",
            5,
            "two of them are different events for acc-1",
        ),
        (
            "01",
            "session w\nstep d deliver {\"id\": \"evt-1\", \"account\": \"acc-1\", \"amount_cents\": 100}\n\
             session v\nstep e deliver {\"id\": \"evt-1\", \"account\": \"acc-2\", \"amount_cents\": 100}\n\
             permutation d e\n",
            4,
            "every delivery for one event id carries the same one",
        ),
        (
            "01",
            "session w\nstep s { SELECT 1 }\npermutation s\n",
            1,
            "no session delivers",
        ),
        (
            "13",
            "session w\nstep d deliver {\"id\": \"auth-1\"}\npermutation d\n",
            2,
            "w delivers what lesson 13 refuses",
        ),
        (
            "11",
            "session w\nstep d deliver {\"client\": \" \", \"key\": \"k-1\", \
             \"body\": {\"amount_cents\": 1500, \"currency\": \"eur\"}}\npermutation d\n",
            2,
            "the request's client is empty",
        ),
        (
            "13",
            "session w\nstep d deliver {\"id\": \"auth-1\", \"type\": \"authorization.requested\", \
             \"aggregate_id\": \"cus-1\", \"payload\": {\"customer_id\": \"cus-1\", \"card_id\": \
             \"card-1\", \"amount_cents\": 6000}, \"occurred_at\": \"2026-07-14T09:15:40Z\"}\n\
             permutation d\nexpect wait w\n",
            3,
            "lesson 13's rule does not judge",
        ),
        (
            "13",
            "session w\nstep d deliver {\"id\": \"auth-{round}\", \"type\": \"authorization.requested\", \
             \"aggregate_id\": \"cus-1\", \"payload\": {\"customer_id\": \"cus-1\", \"card_id\": \
             \"card-1\", \"amount_cents\": 6000}, \"occurred_at\": \"2026-07-14T09:15:40Z\"}\n\
             permutation d\nbarrier 4 workers, 20 rounds\n",
            3,
            "this lesson's rule does not judge such rounds",
        ),
    ];
    for (number, text, line, words) in cases {
        let error = read(lesson(number), text).expect_err(text);
        assert_eq!(error.line, *line, "{text:?}: {error}");
        assert!(error.message.contains(words), "{text:?}: {error}");
    }
}
