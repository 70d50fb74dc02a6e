use kit::{Fault, Script};

use super::forced::with_events;
use super::{
    STATEMENT_RUN_LOCKS_THE_CUSTOMER, authorization, described, judge_all, shown, with_customer,
};
use crate::judge::Expect;
use crate::{Delivery, Handler, Subject, Violation};

// ANCHOR: killed
/// The connection is lost during COMMIT: the worker's session is terminated while its COMMIT
/// waits. The worker cannot know whether the approval committed; the card network, hearing
/// nothing, sends auth-1 again, to another worker. Whatever the first delivery did, auth-1 is
/// decided once.
pub async fn killed_at_commit_then_redelivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    failed_then_redelivered(subject, Fault::Killed).await
}
// ANCHOR_END: killed

/// The same with the COMMIT cancelled (57014, as a statement timeout would): the transaction
/// rolls back, and the delivery must say it failed, so that the network sends it again.
pub async fn cancelled_at_commit_then_redelivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    failed_then_redelivered(subject, Fault::Cancelled).await
}

async fn failed_then_redelivered<H: Handler>(
    subject: Subject<H>,
    fault: Fault,
) -> Result<(), Violation> {
    let during = Delivery::Story(match fault {
        Fault::Killed => {
            "auth-1 (60.00 on card-1) was delivered, the worker's connection was lost while its \
             COMMIT waited, and auth-1 was delivered again (a scripted crash)"
        }
        Fault::Cancelled => {
            "auth-1 (60.00 on card-1) was delivered, its COMMIT was cancelled while it waited \
             (as a statement timeout would), and auth-1 was delivered again on another \
             connection (a scripted interleaving)"
        }
    });
    let (db, cards) = with_customer(&subject, during, &["auth-1"]).await?;
    let event = authorization("auth-1", "card-1", 6000);
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", STATEMENT_RUN_LOCKS_THE_CUSTOMER)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", event.clone())
        .deliver("worker-2", "again", event.clone())
        .fail("fail", "worker-1", fault);
    let permutation = "lock first fail commit again";
    let (mut interleaving, ran) = kit::play(&db, script, permutation, described, during).await?;
    // The failed delivery's attempt ended with its fault, and its result is set apart.
    let uncounted = u64::from(ran.killed("worker-1") || ran.cancelled("worker-1"));
    let (kept, hidden) = ran.apart_from_failed("worker-1");
    let delivered = with_events(kept, &vec![event; 2]);
    let expect = Expect::default();
    let events = [("auth-1", uncounted)];
    judge_all(
        &cards,
        &delivered,
        &events,
        expect,
        during,
        Some(&mut interleaving),
    )
    .await?;
    Violation::unless_failure_hidden(hidden, fault, during, interleaving.trace())
}
