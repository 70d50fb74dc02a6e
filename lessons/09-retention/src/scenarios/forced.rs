use kit::Script;

use super::{beside_a_backlog, shown, t0};
use crate::{Delivery, Handler, Prune, Subject, Violation, ViolationKind};

/// A delivery half-way through: it has recorded a new event, and not committed yet.
const DELIVERING: &str = "BEGIN; \
     INSERT INTO processed_events (event_id, occurred_on, received_on, received_at) \
     VALUES ('evt-new', '2026-03-02', '2026-03-02', '2026-03-02 09:00:00+00')";

// ANCHOR: forced
/// While a delivery's transaction is open (it has recorded evt-new, a row no prune has any
/// business with), the prune runs: it must finish without waiting for the delivery, and remove
/// the old rows.
pub async fn the_prune_does_not_wait_for_deliveries<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "a delivery had recorded evt-new and not committed yet, and the prune ran meanwhile \
         (a scripted interleaving)",
    );
    let script = Script::new(&subject.handler, shown)
        .sql("delivery", "delivering", DELIVERING)
        .sql("delivery", "commit", "COMMIT")
        .deliver("prune", "prune", Prune::at(t0()));
    // ANCHOR_END: forced
    let permutation = "delivering prune commit";
    let trace = beside_a_backlog(&subject, script, permutation, during, |ran| {
        if ran.waited("prune") {
            let on = "the delivery".to_string();
            return Err(ViolationKind::PruneWaited { on });
        }
        Ok(ran.outcomes)
    })
    .await?;
    kit::passing_trace(&trace);
    Ok(())
}
