//! The compensation that overtakes the action: an order's release reaches the inventory before
//! the reservation it would release, which `reserve` (given) makes afterwards, or makes while
//! the release runs.

use kit::{Common, KitError, Script};

use super::{QUANTITY, cancelled, failed, observe, shown};
use crate::inventory::{Inventory, LEFT_ON_THE_SHELF, OrderRow, sku_of};
use crate::judge::verdict;
use crate::reserve::{reserve, reserving};
use crate::{Delivery, Handler, Outcome, ReservationEvent, Subject, Violation, ViolationKind};

/// Units on the shelf before the reservation takes its share.
const ON_THE_SHELF: i32 = LEFT_ON_THE_SHELF + QUANTITY;

// ANCHOR: cancelled_first
/// order.cancelled reaches the inventory before order.created does: the two travel different
/// paths, and nothing orders one after the other. It is delivered, and delivered again; then
/// the inventory reserves the order's units, as it does for every order it hears of; then
/// payment.failed arrives for the same order. Nothing may be held for the cancelled order, and
/// no delivery may fail: a failed one is redelivered until the broker gives up on it.
pub async fn cancelled_before_the_reservation<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "order.cancelled for ord-1 was delivered twice before ord-1's reservation was made; \
         then the inventory reserved ord-1's units, and payment.failed for ord-1 arrived",
    );
    let (db, inventory) = kit::prepare(&subject.schema, during, Inventory::open).await?;
    (inventory.stock_only("ord-1", ON_THE_SHELF).await).map_err(Violation::setup(during))?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let mut before = Vec::new();
    for event in [cancelled("ord-1"), cancelled("ord-1")] {
        let outcome = subject.handler.call(pool.clone(), event.clone()).await;
        before.push((event, outcome));
    }
    reserve(&pool, "ord-1", &sku_of("ord-1"), QUANTITY)
        .await
        .map_err(|e| Violation::setup(during)(KitError::database("reserve ord-1's units")(e)))?;
    let reserved = (inventory.observe_row("ord-1").await).map_err(Violation::setup(during))?;
    let after = subject.handler.call(pool.clone(), failed("ord-1")).await;
    // ANCHOR_END: cancelled_first
    let row = (inventory.observe_row("ord-1").await).map_err(Violation::setup(during))?;
    let elsewhere = inventory.tombstone_elsewhere("ord-1").await;
    let elsewhere = elsewhere.map_err(Violation::setup(during))?;
    judge_cancelled_first(&reserved, &row, &before, after, elsewhere)
        .map_err(Violation::caught(during, None))
}

/// Nothing failed; the reservation held nothing (`reserved`: its row and shelf right after
/// it); and in the end (`row`) nothing went back that was never taken, at most one
/// announcement, and the reports say that the first cancellation found nothing to release.
fn judge_cancelled_first(
    reserved: &OrderRow,
    row: &OrderRow,
    before: &[(ReservationEvent, Result<Outcome, sqlx::Error>)],
    after: Result<Outcome, sqlx::Error>,
    elsewhere: Option<String>,
) -> Result<(), ViolationKind> {
    if let Some((event, Err(error))) = before.iter().find(|(_, outcome)| outcome.is_err()) {
        return Err(failure(event, error));
    }
    let first = before
        .first()
        .and_then(|(_, outcome)| outcome.as_ref().ok());
    if reserved.status.as_deref() == Some("held") || reserved.available < ON_THE_SHELF {
        return Err(ViolationKind::HeldForACancelledOrder {
            summary: reserved.summary(),
            reported: first.copied(),
            elsewhere,
        });
    }
    let after = after.map_err(|error| ViolationKind::Common(Common::failed(&error)))?;
    if row.status.as_deref() != Some("released") || row.available != ON_THE_SHELF {
        return Err(ViolationKind::StateDisagrees {
            summary: row.summary(),
        });
    }
    if row.announced.len() > 1 {
        return Err(ViolationKind::AnnouncedTwice {
            order_id: row.order_id.clone(),
            ids: row.announced.clone(),
        });
    }
    let reports: Vec<Outcome> = (before.iter())
        .filter_map(|(_, outcome)| outcome.as_ref().ok().copied())
        .chain([after])
        .collect();
    let changed_nothing =
        |o: &Outcome| matches!(o, Outcome::AlreadyProcessed | Outcome::AlreadySettled);
    if reports.first() != Some(&Outcome::NothingReserved)
        || !reports[1..].iter().all(changed_nothing)
    {
        return Err(ViolationKind::NothingReservedMisreported { reports });
    }
    Ok(())
}

/// A release that failed: for want of a reservation (no row found, or a key taken by the
/// reservation that committed meanwhile), or for a reason of its own, which its SQLSTATE says.
fn failure(event: &ReservationEvent, error: &sqlx::Error) -> ViolationKind {
    if matches!(error, sqlx::Error::RowNotFound) || kit::is_unique_violation(error) {
        ViolationKind::FailedWithoutAReservation {
            event: format!(
                "{} {} for {}",
                event.kind().as_str(),
                event.id(),
                event.order_id()
            ),
            error: kit::describe_sqlx(error),
        }
    } else {
        ViolationKind::Common(Common::failed(error))
    }
}

/// The reservation, half-way through `reserve`'s transaction: its row inserted and its units
/// taken off the shelf, not committed yet.
fn reserving_ord_1() -> String {
    reserving("ord-1", &sku_of("ord-1"), QUANTITY)
}

// ANCHOR: cancel_races_reservation
/// order.cancelled reaches a worker while the reservation of the same order is half-way
/// through its transaction: the release cannot see the reservation yet, and the reservation
/// does not know of the release. Once the reservation commits, its units must go back on the
/// shelf, once, announced once.
pub async fn cancellation_races_the_reservation<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "order.cancelled for ord-1 reached a worker while the inventory's reservation of ord-1's \
         units was inside its transaction, not committed yet (a scripted interleaving)",
    );
    let (db, inventory) = kit::prepare(&subject.schema, during, Inventory::open).await?;
    (inventory.stock_only("ord-1", ON_THE_SHELF).await).map_err(Violation::setup(during))?;
    let script = Script::new(&subject.handler, shown)
        .sql("reserve", "reserving", &reserving_ord_1())
        .sql("reserve", "commit", "COMMIT")
        .deliver("worker-1", "cancel", cancelled("ord-1"));
    let permutation = "reserving cancel commit";
    // ANCHOR_END: cancel_races_reservation
    let (mut interleaving, ran) =
        kit::play(&db, script, permutation, kit::describe_outcome, during).await?;
    let outcomes: Vec<_> = ran.outcomes.into_iter().map(|(_, o)| o).collect();
    let row = (inventory.observe_row("ord-1").await).map_err(Violation::setup(during))?;
    interleaving.note(row.summary());
    let trace = interleaving.trace().clone();
    let violation = |kind| Violation {
        kind,
        during,
        trace: Some(trace.clone()),
    };
    if let Some(Err(error)) = outcomes.iter().find(|outcome| outcome.is_err()) {
        return Err(violation(failure(&cancelled("ord-1"), error)));
    }
    if row.status.as_deref() == Some("held") {
        let reported = outcomes.first().and_then(|o| o.as_ref().ok()).copied();
        let elsewhere = inventory.tombstone_elsewhere("ord-1").await;
        return Err(violation(ViolationKind::HeldForACancelledOrder {
            summary: row.summary(),
            reported,
            elsewhere: elsewhere.map_err(Violation::setup(during))?,
        }));
    }
    let observed = observe(&inventory, "ord-1", during, None).await?;
    verdict(&observed, &outcomes, during, Some(&trace))?;
    kit::passing_trace(&trace);
    Ok(())
}
