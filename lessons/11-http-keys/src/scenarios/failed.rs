use kit::{Fault, Script};

use super::forced::{LOCK_ACME, judge_the_race, sent_by};
use super::{CLIENT, judge, payment, prepare, shown};
use crate::http::describe;
use crate::{Delivery, Handler, Http, Subject, Violation};

// ANCHOR: killed
/// The first request dies half-way (its database session terminated, as when the API's process
/// dies) while it creates the payment; the client, with no answer, sends it again. Whatever the
/// first request did is gone with its transaction: the retry must make the payment, once.
pub async fn killed_half_way_then_retried<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    failed_then_retried(subject, Fault::Killed).await
}
// ANCHOR_END: killed

/// The same with the first request's statement cancelled (as by statement_timeout): its
/// transaction rolls back, the API answers 500, and the client sends the request again.
pub async fn cancelled_half_way_then_retried<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    failed_then_retried(subject, Fault::Cancelled).await
}

// ANCHOR: abandoned
/// The first request is abandoned half-way: the API drops its handler's future while it waits
/// to create the payment (a request timeout, a client that hung up), and the client sends it
/// again at once. No more of the first request's code runs, not even an error branch; its
/// statement runs on in the database, holding whatever it holds, until the payment's lock is
/// released. Then the request's transaction, never committed, rolls back, and the retry must
/// make the payment, once: the key must not stay taken.
pub async fn abandoned_half_way_then_retried<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme's first request was abandoned while it created the payment (the API dropped its \
         handler's future, as a request timeout would), and acme sent it again at once (a \
         scripted interleaving)",
    );
    let (db, payments) = prepare(&subject, during).await?;
    let call = payment();
    let script = Script::new(&Http(subject.handler.clone()), shown)
        .sql("holder", "lock", LOCK_ACME)
        .sql("holder", "commit", "COMMIT")
        .deliver("api-1", "first", call.clone())
        .abandon("abandon", "api-1")
        .deliver("api-2", "again", call.clone());
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "lock first abandon again commit",
        describe,
        during,
    )
    .await?;
    // An abandoned request answers nobody: what its client has is the retry's answer, sent
    // while the abandoned request's transaction was still open.
    let sent = sent_by(ran.outcomes, &[("api-2", &call)]);
    judge_the_race(&payments, &sent, during, &mut interleaving).await
}
// ANCHOR_END: abandoned

async fn failed_then_retried<H: Handler>(
    subject: Subject<H>,
    fault: Fault,
) -> Result<(), Violation> {
    let during = Delivery::Story(match fault {
        Fault::Killed => {
            "acme's first request died while it created the payment (its session terminated, \
             a scripted crash), and acme sent it again"
        }
        Fault::Cancelled => {
            "acme's first request had its statement cancelled while it created the payment (as \
             a statement timeout would), and acme sent it again (a scripted interleaving)"
        }
    });
    let (db, payments) = prepare(&subject, during).await?;
    let call = payment();
    let script = Script::new(&Http(subject.handler.clone()), shown)
        .sql("holder", "lock", LOCK_ACME)
        .sql("holder", "commit", "COMMIT")
        .deliver("api-1", "first", call.clone())
        .deliver("api-2", "again", call.clone())
        .fail("fail", "api-1", fault);
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "lock first fail commit again",
        describe,
        during,
    )
    .await?;
    let (kept, hidden) = ran.apart_from_failed("api-1");
    let sent = sent_by(kept, &[("api-2", &call)]);
    judge(
        &payments,
        CLIENT,
        &sent,
        during,
        false,
        Some(&mut interleaving),
    )
    .await?;
    // A 409 from the failed request sends its client back later, and the retry made the
    // payment: nothing is lost. Any other answer is one the client acts on as final.
    let hidden = hidden.filter(|answer| answer.status != 409).map(Box::new);
    Violation::unless_failure_hidden(hidden, fault, during, interleaving.trace())
}
