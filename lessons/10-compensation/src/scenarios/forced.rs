use kit::Script;

use super::{cancelled, failed, observe, shown, succeeded, with_reservations};
use crate::judge::verdict;
use crate::{Delivery, Handler, ReservationEvent, Subject, Violation};

/// The holder reads ord-1's reservation under a share lock, as a stock report reading it
/// `FOR SHARE` would. Every read gets past it, so both deliveries reach their first write to
/// the reservation before anything stops them; that write waits for the holder.
const A_REPORT_READS_THE_RESERVATION: &str =
    "BEGIN; SELECT 1 FROM reservations WHERE order_id = 'ord-1' FOR SHARE";

/// The script every race here shares, as PostgreSQL's isolation tester would write it. The
/// first worker stops inside its transaction at its first write to the reservation, holding
/// whatever it did before; once the observer *sees* it waiting, the second worker starts; once
/// the second is seen waiting (or done), the holder lets go. The first worker's event then
/// reaches the reservation first, every run: nothing here depends on who wakes first.
async fn race_for_one_reservation<H: Handler>(
    subject: Subject<H>,
    during: Delivery,
    first: ReservationEvent,
    second: ReservationEvent,
) -> Result<(), Violation> {
    let (db, inventory) = with_reservations(&subject, during, &["ord-1"]).await?;
    // ANCHOR: race_script
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "read", A_REPORT_READS_THE_RESERVATION)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", first)
        .deliver("worker-2", "second", second);
    let permutation = "read first second commit";
    // ANCHOR_END: race_script
    let (mut interleaving, ran) =
        kit::play(&db, script, permutation, kit::describe_outcome, during).await?;
    let outcomes: Vec<_> = ran.outcomes.into_iter().map(|(_, o)| o).collect();
    let observed = observe(&inventory, "ord-1", during, Some(&mut interleaving)).await?;
    let trace = interleaving.trace().clone();
    verdict(&observed, &outcomes, during, Some(&trace))?;
    kit::passing_trace(&trace);
    Ok(())
}

// ANCHOR: duplicate_race
/// Guard 1's race, on a compensation: the same payment.failed reaches a second worker while
/// the first is inside its transaction, releasing the reservation, not committed yet.
pub async fn duplicate_races_an_uncommitted_release<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    race_for_one_reservation(
        subject,
        Delivery::Story(
            "payment.failed for ord-1 reached two workers, the second while the first was still \
             inside its transaction (a scripted interleaving)",
        ),
        failed("ord-1"),
        failed("ord-1"),
    )
    .await
}
// ANCHOR_END: duplicate_race

// ANCHOR: two_reasons
/// Two *different* events that both call for the compensation: the payment failed, and the
/// customer cancelled, for the same order. Two event ids, so a record of handled ids tells
/// them apart; one reservation, which only one of them may release.
pub async fn failure_races_a_cancellation<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    race_for_one_reservation(
        subject,
        Delivery::Story(
            "payment.failed and order.cancelled for ord-1 reached two workers, the second while \
             the first was still inside its transaction (a scripted interleaving)",
        ),
        failed("ord-1"),
        cancelled("ord-1"),
    )
    .await
}
// ANCHOR_END: two_reasons

// ANCHOR: contradicting
/// Two events that settle the reservation in opposite ways: the payment succeeded (consume)
/// and, late or out of order, a payment.failed (release). The first to reach the reservation
/// settles it; the other must change nothing, never both.
pub async fn success_races_a_failure<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    race_for_one_reservation(
        subject,
        Delivery::Story(
            "payment.succeeded and payment.failed for ord-1 reached two workers, the second \
             while the first was still inside its transaction (a scripted interleaving)",
        ),
        succeeded("ord-1"),
        failed("ord-1"),
    )
    .await
}
// ANCHOR_END: contradicting
