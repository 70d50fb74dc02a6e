use kit::{Fault, Script};

use super::{LOCK_THE_STEPS_TABLES, observe, order_created, prepare, shown};
use crate::judge::verdict;
use crate::{DEFAULT_CARD, Delivery, Handler, Subject, Violation};

// ANCHOR: crash_after_the_charge
/// The fault the lesson is about: the first delivery charges the card, then dies before its
/// transaction commits (its backend terminated, as when the consumer process dies), and the
/// broker delivers order.created again. The charge stays: the network took it. Everything the
/// delivery wrote in its transaction is gone. The redelivery must pay for the order without
/// charging the customer a second time, and announce it.
pub async fn crash_after_the_charge_then_redelivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    failed_then_redelivered(subject, Fault::Killed).await
}
// ANCHOR_END: crash_after_the_charge

/// The same with the first delivery's statement cancelled (as by statement_timeout) while it
/// waits to write its record: its transaction rolls back, its session goes back to its pool,
/// and the handler must report the failure so that the broker redelivers.
pub async fn cancelled_after_the_charge_then_redelivery<H: Handler>(
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
            "order.created for ord-1 was delivered, the worker died before its transaction \
             committed, and the order was delivered again (a scripted crash)"
        }
        Fault::Cancelled => {
            "order.created for ord-1 was delivered, its statement was cancelled before its \
             transaction committed (as a statement timeout would), and the order was delivered \
             again on another connection (a scripted interleaving)"
        }
    });
    stopped_then_redelivered(subject, LOCK_THE_STEPS_TABLES, fault, during).await
}

/// The holder's lock on the card network's table: a delivery stops inside its charge, before
/// the network has taken it.
const LOCK_THE_NETWORK: &str = "BEGIN; LOCK TABLE card_network.charges IN SHARE MODE";

// ANCHOR: crash_during_the_charge
/// The handler's other crash point: the first delivery dies while the card network is still
/// taking the charge, so there is none. Whatever the delivery committed before it called the
/// network must not keep the redelivery from charging. With the crash after the charge (above),
/// the handler is killed on each side of its one call that no transaction can take back.
pub async fn crash_during_the_charge_then_redelivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "order.created for ord-1 was delivered, the worker died while the card network was \
         taking the charge, before it had, and the order was delivered again (a scripted crash)",
    );
    stopped_then_redelivered(subject, LOCK_THE_NETWORK, Fault::Killed, during).await
}
// ANCHOR_END: crash_during_the_charge

/// The first delivery stops on the holder's `lock` and fails there (`fault`); the holder lets
/// go and the order is delivered again. The network must hold one charge, announced once, and
/// the failed delivery must have said that it failed.
async fn stopped_then_redelivered<H: Handler>(
    subject: Subject<H>,
    lock: &str,
    fault: Fault,
    during: Delivery,
) -> Result<(), Violation> {
    let (db, step) = prepare(&subject, during).await?;
    let order = order_created("ord-1", DEFAULT_CARD);
    // ANCHOR: fault_script
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", lock)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", order.clone())
        .deliver("worker-2", "again", order.clone())
        .fail("fail", "worker-1", fault);
    // ANCHOR_END: fault_script
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
    let observed = observe(&step, "ord-1", &[], during, Some(&mut interleaving)).await?;
    let trace = interleaving.trace();
    verdict(&observed, &outcomes, during, Some(trace))?;
    Violation::unless_failure_hidden(hidden, fault, during, trace)
}
