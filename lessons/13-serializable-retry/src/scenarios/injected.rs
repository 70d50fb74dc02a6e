//! Conflicts the test injects, and an error no retry can change. No interleaving is needed:
//! the database fails the first attempts of an event with 40001 (a trigger, counting attempts
//! in a sequence, which a rollback does not give back), as a customer whose every transaction
//! conflicts with another would.

use super::{authorization, judge_all, with_probes};
use crate::judge::Expect;
use crate::violation::MOST_ATTEMPTS;
use crate::{Delivery, Handler, Subject, Violation};

// ANCHOR: three_times
/// The first three attempts of auth-1 fail with 40001; the fourth approves it. The delivery
/// must report Approved after 4 attempts.
pub async fn conflicts_three_times<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "auth-1 (60.00 on card-1) was delivered once, and the database failed its first three \
         attempts with 40001 (injected by the test)",
    );
    one_delivery(subject, during, (3, "40001"), Expect::default(), "card-1").await
}
// ANCHOR_END: three_times

/// The first two attempts of auth-1 end in a deadlock (40P01); the third approves it. A deadlock
/// aborts the whole transaction as a serialization failure does.
pub async fn deadlocks_twice<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "auth-1 (60.00 on card-1) was delivered once, and the database broke a deadlock by \
         aborting its first two attempts with 40P01 (injected by the test)",
    );
    one_delivery(subject, during, (2, "40P01"), Expect::default(), "card-1").await
}

// ANCHOR: every_time
/// Every attempt of auth-1 fails with 40001, up to far more than any bound: the delivery must
/// give up, with the error, after more than one attempt and at most ten.
pub async fn conflicts_every_time<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "auth-1 (60.00 on card-1) was delivered once, and the database failed every attempt of \
         it with 40001 (injected by the test)",
    );
    let expect = Expect {
        gives_up: Some("auth-1"),
        ..Expect::default()
    };
    // One more than the bound, and then no more: a loop without a bound ends, and says how far
    // it went, instead of hanging the test.
    let fail_first = MOST_ATTEMPTS as i64 + 1;
    one_delivery(subject, during, (fail_first, "40001"), expect, "card-1").await
}
// ANCHOR_END: every_time

// ANCHOR: unknown_card
/// auth-1 names a card the issuer never issued: its foreign key refuses the decision (23503),
/// and no attempt can change that. The delivery must return the error after one attempt.
pub async fn unknown_card<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during =
        Delivery::Story("auth-1 (60.00 on card-9, a card never issued) was delivered once");
    let expect = Expect {
        refused: Some("auth-1"),
        ..Expect::default()
    };
    one_delivery(subject, during, (0, "40001"), expect, "card-9").await
}
// ANCHOR_END: unknown_card

async fn one_delivery<H: Handler>(
    subject: Subject<H>,
    during: Delivery,
    (fail_first, fail_with): (i64, &str),
    expect: Expect<'_>,
    card: &str,
) -> Result<(), Violation> {
    let probes = [("auth-1", fail_first, fail_with)];
    let (db, cards) = with_probes(&subject, during, &probes).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let event = authorization("auth-1", card, 6000);
    let result = subject.handler.call(pool, event.clone()).await;
    judge_all(
        &cards,
        &[(event, result)],
        &[("auth-1", 0)],
        expect,
        during,
        None,
    )
    .await
}
