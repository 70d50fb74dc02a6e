//! The races, forced: another worker's transaction, typed step by step as PostgreSQL's
//! isolation tester writes its sessions, holds the moment still while a delivery runs into it.

use kit::Script;

use super::{
    STATEMENT_RUN_LOCKS_THE_CUSTOMER, authorization, described, judge_all, shown, with_customer,
};
use crate::judge::Expect;
use crate::{Authorization, Delivery, Handler, Subject, Violation};

/// Another worker approves auth-other, 80.00 on card-1, at SERIALIZABLE: it locks the
/// customer's row to read the limit, reads the total, and writes its approval. It has not
/// committed; the delivery's COMMIT, which checks its deferred foreign key on that row, waits
/// for it.
const OTHER_APPROVES_ON_CARD_1: &str = "BEGIN ISOLATION LEVEL SERIALIZABLE; \
     SELECT limit_cents FROM customers WHERE id = 'cus-1' FOR UPDATE; \
     SELECT sum(spent_cents) FROM cards WHERE customer_id = 'cus-1'; \
     UPDATE cards SET spent_cents = spent_cents + 8000 WHERE id = 'card-1'; \
     INSERT INTO authorizations VALUES ('auth-other', 'card-1', 'cus-1', 8000, 'approved')";

// ANCHOR: at_commit
/// Write skew, caught at COMMIT. The delivery asks for 80.00 on card-2 while another worker's
/// approval of 80.00 on card-1 is uncommitted: each reads a total of 0, and each writes a card
/// the other only read. Every statement of the delivery succeeds; its COMMIT waits for the other
/// worker, which commits first; then PostgreSQL refuses the delivery's COMMIT with 40001,
/// since no one-at-a-time order gives both approvals. Judged: auth-1 ends decided, once, by the
/// delivery, with the other worker's 80.00 counted against the limit; a delivery that hands the
/// 40001 back has decided nothing.
pub async fn aborted_at_commit<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "auth-1 (80.00 on card-2) was delivered while another worker's approval of 80.00 on \
         card-1, for the same customer, was not committed yet (a scripted interleaving)",
    );
    let event = authorization("auth-1", "card-2", 8000);
    let script = |script: Script<_, H>| {
        script
            .sql("other", "approve", OTHER_APPROVES_ON_CARD_1)
            .sql("other", "commit", "COMMIT")
            .deliver("worker", "authorize", event.clone())
    };
    scripted(
        subject,
        during,
        script,
        "approve authorize commit",
        std::slice::from_ref(&event),
    )
    .await
}
// ANCHOR_END: at_commit

/// Another worker approves auth-other, 30.00 on card-2, at SERIALIZABLE, and has not committed:
/// its row of card-2 is locked until it does. Like the worker above, it locks the customer's row
/// first, so it holds every lock it needs before the delivery starts. Without that, its COMMIT
/// would take a key-share lock on the customer for its deferred foreign key, and a delivery
/// that locks the customer `FOR UPDATE` (a correct fix) would deadlock with it: which of the two
/// PostgreSQL aborts then depends on whose `deadlock_timeout` runs out first, a timer, and
/// either one may be the test's own session.
const OTHER_APPROVES_ON_CARD_2: &str = "BEGIN ISOLATION LEVEL SERIALIZABLE; \
     SELECT limit_cents FROM customers WHERE id = 'cus-1' FOR UPDATE; \
     UPDATE cards SET spent_cents = spent_cents + 3000 WHERE id = 'card-2'; \
     INSERT INTO authorizations VALUES ('auth-other', 'card-2', 'cus-1', 3000, 'approved')";

// ANCHOR: at_update
/// The lost update, caught at a statement. The delivery asks for 60.00 on card-2 while another
/// worker's approval of 30.00 on the same card is uncommitted: the delivery's UPDATE waits for
/// the row; the other worker commits; and the UPDATE fails with 40001, because the row changed
/// after the delivery's snapshot was taken. Judged: auth-1 ends decided, once, by the delivery,
/// within the limit; the other worker's 30.00 leaves room for it, so a delivery that hands the
/// 40001 back has refused a payment nothing was wrong with.
pub async fn aborted_at_an_update<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "auth-1 (60.00 on card-2) was delivered while another worker's approval of 30.00 on the \
         same card was not committed yet (a scripted interleaving)",
    );
    let event = authorization("auth-1", "card-2", 6000);
    let script = |script: Script<_, H>| {
        script
            .sql("other", "approve", OTHER_APPROVES_ON_CARD_2)
            .sql("other", "commit", "COMMIT")
            .deliver("worker", "authorize", event.clone())
    };
    scripted(
        subject,
        during,
        script,
        "approve authorize commit",
        std::slice::from_ref(&event),
    )
    .await
}
// ANCHOR_END: at_update

// ANCHOR: copy_race
/// Guard 1's race, at SERIALIZABLE. The first delivery of auth-1 has written everything and
/// waits at its COMMIT; a copy of auth-1 reaches a second worker, whose insert of the event's
/// key waits for the first. The first commits; the copy's key is refused with 23505, which
/// means what it meant at every other level: this event was decided already.
pub async fn copy_races_an_uncommitted_decision<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "auth-1 (60.00 on card-1) reached two workers, the second while the first was still \
         inside its transaction (a scripted interleaving)",
    );
    let event = authorization("auth-1", "card-1", 6000);
    let script = |script: Script<_, H>| {
        script
            .sql("holder", "lock", STATEMENT_RUN_LOCKS_THE_CUSTOMER)
            .sql("holder", "commit", "COMMIT")
            .deliver("worker-1", "first", event.clone())
            .deliver("worker-2", "copy", event.clone())
    };
    let delivered = [event.clone(), event.clone()];
    scripted(
        subject,
        during,
        script,
        "lock first copy commit",
        &delivered,
    )
    .await
}
// ANCHOR_END: copy_race

/// Plays the script `script` writes, in the order `permutation` gives, for one customer and
/// auth-1, whose deliveries carried `events` (in the order they start); then judges what they
/// left.
async fn scripted<H: Handler>(
    subject: Subject<H>,
    during: Delivery,
    script: impl FnOnce(Script<Authorization, H>) -> Script<Authorization, H>,
    permutation: &str,
    events: &[Authorization],
) -> Result<(), Violation> {
    let (db, cards) = with_customer(&subject, during, &["auth-1"]).await?;
    let script = script(Script::new(&subject.handler, shown));
    let (mut interleaving, ran) = kit::play(&db, script, permutation, described, during).await?;
    let delivered = with_events(ran.outcomes, events);
    let expect = Expect::default();
    judge_all(
        &cards,
        &delivered,
        &[("auth-1", 0)],
        expect,
        during,
        Some(&mut interleaving),
    )
    .await
}

/// Each worker's result, with the event it was given (in the order the workers started).
pub(super) fn with_events(
    outcomes: kit::Outcomes<Result<crate::Handled, sqlx::Error>>,
    events: &[crate::Authorization],
) -> Vec<crate::judge::Delivered> {
    (events.iter().cloned())
        .zip(outcomes.into_iter().map(|(_, outcome)| outcome))
        .collect()
}
