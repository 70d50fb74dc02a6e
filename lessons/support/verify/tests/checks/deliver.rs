//! `cargo workbook deliver`'s promise about bad input, kept against a real database: a line that
//! is rejected writes nothing, the lines before it stay delivered exactly once (also when the
//! whole input is delivered again), and no line after it is read.

use kit::TestDatabase;
use kit::deliver::{Stopped, run};
use order_saga::by_hand::SagaFeed;

const INPUT: &str = r#"{"id":"ord-1","type":"order.created","aggregate_id":"ord-1","payload":{"order_id":"ord-1","amount_cents":2598},"occurred_at":"2026-07-14T09:15:00Z"}

{"id":"ord-1:payment","type":"payment.succeeded","aggregate_id":"ord-1","payload":{"order_id":"ord-1","amount_cents":2598},"occurred_at":"2026-07-14T09:15:40Z"}
{"id":"late-failure-001","type":"payment.failed","aggregate_id":"ord-1","payload":{"order_id":"ord-2","amount_cents":2598,"reason":"limit"},"occurred_at":"2026-07-14T09:20:00Z"}
{"id":"ord-3","type":"order.created","aggregate_id":"ord-3","payload":{"order_id":"ord-3","amount_cents":100},"occurred_at":"2026-07-14T09:21:00Z"}
"#;

async fn counts(client: &tokio_postgres::Client) -> (i64, i64, i64, String) {
    let row = client
        .query_one(
            "SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM processed_events), \
             (SELECT count(*) FROM outbox), (SELECT status FROM orders WHERE id = 'ord-1')",
            &[],
        )
        .await
        .unwrap();
    (row.get(0), row.get(1), row.get(2), row.get(3))
}

#[tokio::test]
async fn a_rejected_line_writes_nothing_and_what_came_before_stays_delivered_once() {
    let subject = order_saga::subject!(verify::solution_05::apply_payment_result);
    let db = TestDatabase::create(&subject.schema).await.unwrap();
    let pool = db.pool(1).await.unwrap();
    let client = db.session().await.unwrap();
    let feed = SagaFeed::new(subject.handler);

    for attempt in 1..=2 {
        let mut out = Vec::new();
        let stopped = run(&feed, &pool, INPUT.as_bytes(), &mut out).await;
        let said = String::from_utf8(out).unwrap();
        let (delivered, why) = stopped.expect_err("line 4 is bad");
        assert_eq!(delivered, 2, "attempt {attempt}: {said}");
        match why {
            Stopped::Rejected { line, problem } => {
                assert_eq!(line, 4, "the blank line 2 still counts");
                assert!(
                    problem.contains("payload names order \"ord-2\""),
                    "{problem}"
                );
            }
            other => panic!("attempt {attempt}: {other:?}"),
        }
        let outcome = if attempt == 1 {
            "Applied"
        } else {
            "AlreadyApplied"
        };
        assert!(
            said.contains(&format!(
                "line 3: payment.succeeded ord-1:payment (2598 cents for ord-1): {outcome}"
            )),
            "{said}"
        );
        // One order (ord-3 was never read), one record (line 4 wrote none), one announcement.
        assert_eq!(
            counts(&client).await,
            (1, 1, 1, "confirmed".to_string()),
            "attempt {attempt}"
        );
    }
}

#[tokio::test]
async fn a_failed_delivery_stops_the_feed_and_says_why() {
    let subject = order_saga::subject!(verify::solution_05::apply_payment_result);
    let db = TestDatabase::create(&subject.schema).await.unwrap();
    let pool = db.pool(1).await.unwrap();
    let feed = SagaFeed::new(subject.handler);
    let unknown = r#"{"id":"ord-9:payment","type":"payment.succeeded","aggregate_id":"ord-9","payload":{"order_id":"ord-9","amount_cents":5},"occurred_at":"t"}"#;

    let stopped = run(&feed, &pool, unknown.as_bytes(), &mut Vec::new()).await;

    match stopped {
        Err((0, Stopped::Failed { line: 1, error })) => {
            assert!(error.contains("there is no order \"ord-9\""), "{error}");
            assert!(error.contains("order.created first"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    let client = db.session().await.unwrap();
    assert_eq!(records(&client).await, 0, "its record rolled back with it");
}

async fn records(client: &tokio_postgres::Client) -> i64 {
    client
        .query_one("SELECT count(*) FROM processed_events", &[])
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn a_line_that_is_not_text_is_rejected_by_number() {
    let subject = order_saga::subject!(verify::solution_05::apply_payment_result);
    let db = TestDatabase::create(&subject.schema).await.unwrap();
    let pool = db.pool(1).await.unwrap();
    let feed = SagaFeed::new(subject.handler);

    let stopped = run(&feed, &pool, &b"\n\xff\xfe\n"[..], &mut Vec::new()).await;

    assert_eq!(
        stopped,
        Err((
            0,
            Stopped::Rejected {
                line: 2,
                problem: "it is not UTF-8 text".into()
            }
        ))
    );
}

/// Lesson 01's feed: the same promise, on the ledger, through the solution's `apply_credit`.
#[tokio::test]
async fn the_ledger_feed_credits_once_and_refuses_a_bad_line_by_number() {
    let subject = check_then_act::subject!(
        verify::solution_01::apply_credit,
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../solutions/01-check-then-act"
        )
    );
    let db = TestDatabase::create(&subject.schema).await.unwrap();
    let pool = db.pool(1).await.unwrap();
    let feed = check_then_act::by_hand::LedgerFeed::new(subject.handler);
    let input = r#"{"type":"account.opened","account":"acc-1"}
{"id":"evt-1","account":"acc-1","amount_cents":100}
{"id":"evt-1","account":"acc-1","amount_cents":100}
{"id":"evt-2","account":"acc-1","amount_cents":"100"}
{"id":"evt-3","account":"acc-1","amount_cents":100}
"#;

    let mut out = Vec::new();
    let stopped = run(&feed, &pool, input.as_bytes(), &mut out).await;

    let said = String::from_utf8(out).unwrap();
    assert!(
        said.contains("line 3: credit evt-1 (+100 to acc-1): AlreadyApplied"),
        "{said}"
    );
    match stopped {
        Err((3, Stopped::Rejected { line: 4, problem })) => {
            assert!(
                problem.contains("invalid type: string \"100\""),
                "{problem}"
            );
        }
        other => panic!("{other:?}"),
    }
    let balance: i64 = db
        .session()
        .await
        .unwrap()
        .query_one("SELECT balance_cents FROM accounts WHERE id = 'acc-1'", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(balance, 100, "evt-1 once; evt-3 never read");
}

/// Lesson 06's feed keeps the same promise, and a redelivered order.created charges nothing.
#[tokio::test]
async fn lesson_06_rejects_a_bad_line_and_a_redelivered_order_charges_once() {
    use deterministic_ids::by_hand::PaymentFeed;

    let subject = deterministic_ids::subject!(verify::solution_06::take_payment);
    let db = TestDatabase::create(&subject.schema).await.unwrap();
    let pool = db.pool(1).await.unwrap();
    let client = db.session().await.unwrap();
    let feed = PaymentFeed::new(subject.handler);
    let created = r#"{"id":"evt-ord-1","type":"order.created","aggregate_id":"ord-1","payload":{"order_id":"ord-1","amount_cents":2598},"occurred_at":"2026-07-14T09:15:00Z"}"#;
    let input = format!(
        "{created}\n{created}\n{}\n{}\n",
        created.replace(r#""order_id":"ord-1""#, r#""order_id":"ord-2""#),
        created.replace("ord-1", "ord-3")
    );
    for attempt in 1..=2 {
        let mut out = Vec::new();
        let stopped = run(&feed, &pool, input.as_bytes(), &mut out).await;
        let said = String::from_utf8(out).unwrap();
        let (delivered, why) = stopped.expect_err("line 3 is bad");
        assert_eq!(delivered, 2, "attempt {attempt}: {said}");
        assert!(
            matches!(&why, Stopped::Rejected { line: 3, problem } if problem.contains("payload names order \"ord-2\"")),
            "attempt {attempt}: {why:?}"
        );
        let first = if attempt == 1 {
            "Applied"
        } else {
            "AlreadyApplied"
        };
        assert!(
            said.contains(&format!(
                "line 1: order.created evt-ord-1 (2598 cents for ord-1, card tok_visa): {first}."
            )),
            "{said}"
        );
        assert!(said.contains("line 2: order.created evt-ord-1 (2598 cents for ord-1, card tok_visa): AlreadyApplied."), "{said}");
        let row = client
            .query_one(
                "SELECT (SELECT count(*) FROM card_network.charges), (SELECT count(*) FROM payments), \
                 (SELECT count(*) FROM outbox)",
                &[],
            )
            .await
            .unwrap();
        let counts: (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
        // One charge, one record, one announcement; ord-3 was never read.
        assert_eq!(counts, (1, 1, 1), "attempt {attempt}");
    }
}
