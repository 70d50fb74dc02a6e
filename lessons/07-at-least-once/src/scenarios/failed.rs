use kit::{Fault, Script};

use super::{GROUP, MAX, catch_up_then_verdict, order_ids, prepare, shown};
use crate::log::{AMOUNT_CENTS, Verdict};
use crate::{Delivery, Handler, Poll, Subject, Violation};

/// The holder's lock on ord-2's row: a consumer stops at the second event of its batch, after
/// it has handled the first.
const LOCK_ORD_2: &str = "BEGIN; SELECT 1 FROM orders WHERE id = 'ord-2' FOR UPDATE";

// ANCHOR: crash_mid_batch
/// The fault the lesson is about: a consumer takes a batch of three verdicts, handles the
/// first, and dies while it waits to handle the second. A new consumer of the group starts
/// from the group's committed offset, as every consumer does, and polls until it has caught up.
/// Every verdict must end up handled exactly once.
pub async fn crash_mid_batch_then_restart<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    failed_then_restarted(subject, Fault::Killed).await
}
// ANCHOR_END: crash_mid_batch

/// The same with the poll's statement cancelled (as by statement_timeout): the poll fails, and
/// the group's next poll must still find every verdict it did not finish.
pub async fn cancelled_mid_batch_then_restart<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    failed_then_restarted(subject, Fault::Cancelled).await
}

async fn failed_then_restarted<H: Handler>(
    subject: Subject<H>,
    fault: Fault,
) -> Result<(), Violation> {
    let during = Delivery::Story(match fault {
        Fault::Killed => {
            "a consumer took a batch of three verdicts, handled the first, and died while it \
             waited to handle the second; a new consumer of the group then polled until it had \
             caught up (a scripted crash)"
        }
        Fault::Cancelled => {
            "a consumer took a batch of three verdicts, handled the first, and its statement \
             was cancelled while it waited to handle the second (as a statement timeout would); \
             then the group polled until it had caught up (a scripted interleaving)"
        }
    });
    let orders = order_ids(2);
    let (db, log) = prepare(&subject, during, &orders).await?;
    let appended = [
        Verdict::paid("pay-1", "ord-1", AMOUNT_CENTS),
        Verdict::paid("pay-2", "ord-2", AMOUNT_CENTS),
        Verdict::failed("fail-1", "ord-1"),
    ];
    (log.append(&appended).await).map_err(Violation::setup(during))?;
    // ANCHOR: fault_script
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", LOCK_ORD_2)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "poll", Poll::new(GROUP, MAX))
        .deliver("worker-2", "restart", Poll::new(GROUP, MAX))
        .fail("fail", "worker-1", fault);
    // ANCHOR_END: fault_script
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "lock poll fail commit restart",
        kit::describe_outcome,
        during,
    )
    .await?;
    // A cancelled or killed poll that reports success instead of its error is judged by what it
    // left.
    let (kept, hidden) = ran.apart_from_failed("worker-1");
    let mut polls: Vec<_> = kept.into_iter().map(|(_, outcome)| outcome).collect();
    polls.extend(hidden.map(Ok));
    let trace = catch_up_then_verdict(
        &subject,
        (&db, &log),
        (&orders, &appended),
        polls,
        MAX,
        during,
        &mut interleaving,
    )
    .await?;
    if let Some(trace) = trace {
        kit::passing_trace(&trace);
    }
    Ok(())
}
