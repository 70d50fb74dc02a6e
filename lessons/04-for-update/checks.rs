//! Lesson 04's subjects and race tests, as the checks run them, and the two handlers a
//! reviewer leaves behind by deleting the guard that "looks redundant".

use order_saga::{Handler, Mix, Outcome, PaymentEvent, Subject, ViolationKind, subject};
use order_saga::{apply_to_order, enqueue};
use sqlx::PgPool;

use crate::Lesson;
use crate::probe::Probe;
use crate::saga::{self, SagaTest};

pub const LESSON: Lesson = Lesson {
    number: "04",
    probes,
};

/// As shipped: both guards, but the status is read without a lock.
pub fn exercise() -> Subject<impl Handler> {
    subject!(exercise_04::apply_payment_result)
}

pub fn solution() -> Subject<impl Handler> {
    subject!(solution_04::apply_payment_result)
}

/// Guard 1 alone: lesson 03's solution, which never looks at the order's status.
pub fn dedupe_only() -> Subject<impl Handler> {
    subject!(solution_03::apply_payment_result)
}

/// Guard 2 alone: lesson 04's solution with the dedupe insert deleted.
pub fn terminal_guard_only() -> Subject<impl Handler> {
    subject!(terminal_guard_only_handler)
}

// ANCHOR: terminal_guard_only
/// The solution without guard 1. Every redelivery runs the whole handler again, and only the
/// order's status stops it, which works while a single event resolves the order, and fails for
/// an event that changes a pending order without resolving it.
async fn terminal_guard_only_handler(
    pool: &PgPool,
    event: &PaymentEvent,
) -> Result<Outcome, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let status: String = sqlx::query_scalar("SELECT status FROM orders WHERE id = $1 FOR UPDATE")
        .bind(event.order_id())
        .fetch_one(&mut *tx)
        .await?;
    if status != "pending" {
        tx.commit().await?;
        return Ok(Outcome::OrderAlreadyResolved);
    }
    if let Some(order_event) = apply_to_order(&mut *tx, event).await? {
        enqueue(&mut *tx, &order_event).await?;
    }
    tx.commit().await?;
    Ok(Outcome::Applied)
}
// ANCHOR_END: terminal_guard_only

pub const RACE_TESTS: [SagaTest; 4] = {
    let [two, eight, thirty_two] = saga::barriers(Mix::Contradicting);
    [SagaTest::ContradictingRace, two, eight, thirty_two]
};

/// Two different events both moved the order.
pub fn is_intended(kind: &ViolationKind) -> bool {
    matches!(kind, ViolationKind::ResolvedTwice { .. })
}

fn probes() -> Vec<Probe> {
    saga::probes(&RACE_TESTS, exercise, solution, is_intended)
}
