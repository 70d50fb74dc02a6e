use kit::{Interleaving, KitError};

use super::{
    AMOUNT_CENTS, describe, gave_up_without_waiting, prepare, stuck_or_setup, succeeded, verdict,
};
use crate::judge::Expect;
use crate::{Delivery, Handler, Subject, Violation};

/// What the holder locks, and so where the first delivery stops before it is killed.
#[derive(Clone, Copy)]
enum StopAt {
    /// The order's row: the first delivery stops at its first touch of the order.
    OrderRow,
    /// The outbox table: the first delivery stops as it writes the outbox row.
    Outbox,
}

/// When the event is delivered again.
#[derive(Clone, Copy, PartialEq)]
enum Redelivery {
    /// While the first delivery is still alive and waiting, inside its transaction.
    WhileTheFirstWaits,
    /// After the first delivery died, as a broker redelivers an unacknowledged event.
    AfterTheCrash,
}

/// The fault script: the first delivery is stopped on the holder's lock, then killed (its
/// backend terminated, as when the consumer process dies), and the event is delivered again.
/// Whatever the first delivery had committed stays; whatever it had not is rolled back. The
/// redelivery must then apply the event, exactly once.
async fn killed<H: Handler>(
    subject: Subject<H>,
    during: Delivery,
    stop_at: StopAt,
    redelivery: Redelivery,
    snapshot: &str,
) -> Result<(), Violation> {
    let setup = Violation::setup;
    let (db, orders) = prepare(&subject, during).await?;
    orders
        .place("ord-1", AMOUNT_CENTS)
        .await
        .map_err(setup(during))?;
    let event = succeeded("pay-1", "ord-1");
    let call = format!("apply_payment_result({} {})", event.kind(), event.id());

    let mut script = Interleaving::new(&db).await.map_err(setup(during))?;
    let holder = script.session(&db, "holder").await.map_err(setup(during))?;
    let lock = match stop_at {
        StopAt::OrderRow => "BEGIN; SELECT 1 FROM orders WHERE id = 'ord-1' FOR UPDATE",
        StopAt::Outbox => "BEGIN; LOCK TABLE outbox IN SHARE MODE",
    };
    script.step(&holder, lock).await.map_err(setup(during))?;
    let stuck = |e: KitError, script: &Interleaving| stuck_or_setup(e, script.trace(), during);

    let start = async |script: &mut Interleaving, name: &str| {
        let pool = db.pool(1).await?;
        let (handler, event) = (subject.handler.clone(), event.clone());
        script
            .start(name, &pool, &call, move |pool| handler.call(pool, event))
            .await
    };
    let first = start(&mut script, "worker-1")
        .await
        .map_err(|e| stuck(e, &script))?;
    let mut second = None;
    if redelivery == Redelivery::WhileTheFirstWaits {
        let started = start(&mut script, "worker-2").await;
        second = Some(started.map_err(|e| stuck(e, &script))?);
    }
    let second_waited = second.as_ref().is_some_and(|w| w.was_waiting());

    let mut delivered = Vec::new();
    if first.was_waiting() {
        // What a killed delivery returns (its connection's error) is not judged: nobody is
        // left to hear it.
        let _connection_lost = script.kill(first).await.map_err(|e| stuck(e, &script))?;
    } else {
        // It never touched what the holder locked, so there was no moment to kill it in.
        let outcome = script.finish(first, describe).await;
        delivered.push((event.clone(), outcome.map_err(|e| stuck(e, &script))?));
    }
    if let Some(second) = &mut second {
        script.settle(second).await.map_err(|e| stuck(e, &script))?;
    }
    script
        .step(&holder, "COMMIT")
        .await
        .map_err(setup(during))?;
    let second = match second {
        Some(second) => second,
        None => start(&mut script, "worker-2")
            .await
            .map_err(|e| stuck(e, &script))?,
    };
    let outcome = script
        .finish(second, describe)
        .await
        .map_err(|e| stuck(e, &script))?;

    let observed = orders
        .observe("ord-1", std::slice::from_ref(&event))
        .await
        .map_err(setup(during))?;
    script.note(observed.summary());
    let trace = script.trace().clone();
    delivered.push((event.clone(), outcome));
    verdict(
        &Expect::ResolvedBy(vec![event]),
        &observed,
        &delivered,
        during,
        Some(&trace),
    )?;
    // A redelivery after the crash has nothing to wait for; one that raced the first does.
    let waited = redelivery == Redelivery::AfterTheCrash || second_waited;
    gave_up_without_waiting(waited, &delivered[delivered.len() - 1].1, during, &trace)?;
    insta::assert_snapshot!(snapshot, trace.to_string());
    Ok(())
}

// ANCHOR: dies_while_duplicate_waits
/// The first delivery dies after recording the event, while a redelivery waits on its
/// uncommitted record. The record rolls back with the rest, so the waiting redelivery must be
/// the one that applies the event.
pub async fn first_delivery_dies_while_a_duplicate_waits<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    killed(
        subject,
        Delivery::Story(
            "payment.succeeded pay-1 reached a second worker while the first was inside its \
             transaction, and then the first died there (a scripted interleaving)",
        ),
        StopAt::OrderRow,
        Redelivery::WhileTheFirstWaits,
        "first_delivery_dies_while_a_duplicate_waits",
    )
    .await
}
// ANCHOR_END: dies_while_duplicate_waits

// ANCHOR: crash_before_effect
/// The essay's first detail as a fault test: the delivery dies before the order changes, and
/// the broker redelivers the event. Whatever the first delivery committed decides whether the
/// redelivery can still apply it.
pub async fn crash_before_the_effect_then_redelivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    killed(
        subject,
        Delivery::Story(
            "payment.succeeded pay-1 was delivered, the worker died before the order changed, \
             and the event was delivered again (a scripted crash)",
        ),
        StopAt::OrderRow,
        Redelivery::AfterTheCrash,
        "crash_before_the_effect_then_redelivery",
    )
    .await
}
// ANCHOR_END: crash_before_effect

// ANCHOR: crash_before_outbox
/// The delivery dies as it writes the outbox row, after the order's change, and the broker
/// redelivers the event. The order must end resolved *and* announced, once.
pub async fn crash_before_the_outbox_row_then_redelivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    killed(
        subject,
        Delivery::Story(
            "payment.succeeded pay-1 was delivered, the worker died as it wrote the outbox row, \
             and the event was delivered again (a scripted crash)",
        ),
        StopAt::Outbox,
        Redelivery::AfterTheCrash,
        "crash_before_the_outbox_row_then_redelivery",
    )
    .await
}
// ANCHOR_END: crash_before_outbox
