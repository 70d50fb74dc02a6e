use kit::{Common, Fault, Script};

use super::{beside_a_backlog, shown, t0};
use crate::{Delivery, Handler, Prune, Subject, Violation, ViolationKind};

/// Another run of the prune, started by an overlapping schedule, half-way through a batch: it
/// has deleted one old row and not committed yet.
const OTHER_RUN_MID_BATCH: &str =
    "BEGIN; DELETE FROM processed_events WHERE event_id = 'evt-old-10'";

// ANCHOR: failed
/// Another run of the prune holds one old row; this run is killed, or its statement cancelled
/// (57014, as `statement_timeout` would), if it is waiting for that row. The other run gives
/// up, and the prune runs again: in the end the old rows are gone, and a run that failed said
/// so instead of reporting rows pruned.
pub async fn a_prune_that_fails_while_it_waits_is_run_again<H: Handler>(
    subject: Subject<H>,
    fault: Fault,
) -> Result<(), Violation> {
    let during = Delivery::Story(match fault {
        Fault::Killed => {
            "another run of the prune held an old row, this run was killed if it was waiting \
             for it, the other run rolled back, and the prune ran again (a scripted \
             interleaving)"
        }
        Fault::Cancelled => {
            "another run of the prune held an old row, this run's statement was cancelled if \
             it was waiting for it, the other run rolled back, and the prune ran again (a \
             scripted interleaving)"
        }
    });
    let script = Script::new(&subject.handler, shown)
        .sql("other-run", "other-batch", OTHER_RUN_MID_BATCH)
        .sql("other-run", "rollback", "ROLLBACK")
        .deliver("prune-1", "prune", Prune::at(t0()))
        .fail("fail", "prune-1", fault)
        .deliver("prune-2", "again", Prune::at(t0()));
    // ANCHOR_END: failed
    let permutation = "other-batch prune fail rollback again";
    let trace = beside_a_backlog(&subject, script, permutation, during, |ran| {
        match ran.apart_from_failed("prune-1") {
            (_, Some(reported)) => Err(ViolationKind::Common(Common::FailureHidden {
                outcome: reported,
                fault,
            })),
            (prunes, None) => Ok(prunes),
        }
    })
    .await?;
    kit::passing_trace(&trace);
    Ok(())
}
