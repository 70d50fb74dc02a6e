use chrono::TimeDelta;
use kit::Script;

use super::{failed, nothing_kept_too_long, prepare, shown, t0};
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
    let (db, ledger, _pool) = prepare(&subject, 1, during).await?;
    (ledger
        .backlog("evt-old-", 10, t0() - TimeDelta::days(10))
        .await)
        .map_err(Violation::setup(during))?;
    let script = Script::new(&subject.handler, shown)
        .sql("delivery", "delivering", DELIVERING)
        .sql("delivery", "commit", "COMMIT")
        .deliver("prune", "prune", Prune::at(t0()));
    // ANCHOR_END: forced
    let (interleaving, ran) = kit::play(
        &db,
        script,
        "delivering prune commit",
        kit::describe_outcome,
        during,
    )
    .await?;
    let trace = interleaving.trace().clone();
    let traced = |mut violation: Violation| {
        violation.trace = Some(trace.clone());
        violation
    };
    if ran.waited("prune") {
        return Err(traced(Violation {
            kind: ViolationKind::PruneWaited {
                on: "the delivery".to_string(),
            },
            during,
            trace: None,
        }));
    }
    for (_, outcome) in &ran.outcomes {
        if let Err(error) = outcome {
            return Err(traced(failed(error, during)));
        }
    }
    nothing_kept_too_long(&ledger, t0(), during)
        .await
        .map_err(traced)?;
    kit::passing_trace("the_prune_does_not_wait_for_deliveries", &trace);
    Ok(())
}
