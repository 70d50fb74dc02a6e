use kit::{Fault, Script};

use super::{failed, observe, shown, with_reservations};
use crate::judge::verdict;
use crate::{Delivery, Handler, Subject, Violation};

/// The holder's lock on the outbox: a delivery stops as it announces the release, with the rest
/// of the release (the stock, the reservation's status) done and not committed.
const LOCK_THE_OUTBOX: &str = "BEGIN; LOCK TABLE outbox IN SHARE MODE";

// ANCHOR: killed
/// A compensation that fails half-way must be tried again, and must still happen once. The
/// first delivery of payment.failed dies as it announces the release (its backend terminated,
/// as when the consumer process dies); the broker delivers the event again, on another
/// connection. Whatever the first delivery did and did not commit, the units go back once and
/// the release is announced once.
pub async fn killed_mid_release_then_redelivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    failed_then_redelivered(subject, Fault::Killed).await
}
// ANCHOR_END: killed

/// The same with the first delivery's statement cancelled (as by statement_timeout): its
/// transaction rolls back, its session goes back to its pool, and the handler must report the
/// failure so that the broker redelivers.
pub async fn cancelled_mid_release_then_redelivery<H: Handler>(
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
            "payment.failed for ord-1 was delivered, the worker died while it announced the \
             release, and the event was delivered again (a scripted crash)"
        }
        Fault::Cancelled => {
            "payment.failed for ord-1 was delivered, its statement was cancelled while it \
             announced the release (as a statement timeout would), and the event was delivered \
             again on another connection (a scripted interleaving)"
        }
    });
    let (db, inventory) = with_reservations(&subject, during, &["ord-1"]).await?;
    let event = failed("ord-1");
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", LOCK_THE_OUTBOX)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", event.clone())
        .deliver("worker-2", "again", event)
        .fail("fail", "worker-1", fault);
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "lock first fail commit again",
        kit::describe_outcome,
        during,
    )
    .await?;
    let (kept, hidden) = ran.apart_from_failed("worker-1");
    let outcomes: Vec<_> = kept.into_iter().map(|(_, outcome)| outcome).collect();
    let observed = observe(&inventory, "ord-1", during, Some(&mut interleaving)).await?;
    let trace = interleaving.trace();
    verdict(&observed, &outcomes, during, Some(trace))?;
    Violation::unless_failure_hidden(hidden, fault, during, trace)
}
