use kit::Script;

use super::{observe, order_created, prepare, shown};
use crate::judge::verdict;
use crate::{DEFAULT_CARD, Delivery, Handler, Subject, Violation};

/// The holder's lock on the outbox: the first worker stops as it announces, with everything
/// before (the charge, its record) done and not committed.
const LOCK_THE_OUTBOX: &str = "BEGIN; LOCK TABLE outbox IN SHARE MODE";

// ANCHOR: forced
/// Two workers get the same order.created, the second while the first is inside its
/// transaction. A scripted session (`holder`) holds the outbox, so the first worker stops as it
/// announces, having done whatever it does before (charge the card, write its record); only
/// once it is *seen* waiting does the second start, and only once the second is seen waiting
/// (or done) does the holder let go.
///
/// Against "charged already?", the second worker's check finds no committed record and it
/// charges again, under a key of its own: every run. Against a derived key, the network
/// answers the second request with the first charge, and the record decides who announces.
pub async fn duplicate_races_an_uncommitted_delivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "order.created for ord-1 reached two workers, the second while the first was still \
         inside its transaction (a scripted interleaving)",
    );
    let (db, step) = prepare(&subject, during).await?;
    let order = order_created("ord-1", DEFAULT_CARD);
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", LOCK_THE_OUTBOX)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", order.clone())
        .deliver("worker-2", "second", order.clone());
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "lock first second commit",
        kit::describe_outcome,
        during,
    )
    .await?;
    // ANCHOR_END: forced
    let outcomes: Vec<_> = ran.outcomes.into_iter().map(|(_, o)| o).collect();
    let observed = observe(&step, "ord-1", &[], during, Some(&mut interleaving)).await?;
    let trace = interleaving.trace().clone();
    verdict(&observed, &outcomes, during, Some(&trace))?;
    kit::passing_trace(&trace);
    Ok(())
}
