//! The one rule every scenario checks, per announcement the producer committed: the broker has
//! it at least once, and the warehouse shipped it exactly once; the steps' reports call no
//! duplicate an error.

use kit::{Errors, Trace};

use crate::world::{RowFate, World};
use crate::{Delivery, Done, Violation, ViolationKind};

pub(crate) fn judge(
    fates: &[RowFate],
    steps: &[Result<Done, sqlx::Error>],
) -> Result<(), ViolationKind> {
    let errors = Errors::of(steps);
    errors.failure().map_err(ViolationKind::Common)?;
    for fate in fates {
        if fate.published == 0 {
            return Err(ViolationKind::NeverPublished {
                outbox_id: fate.outbox_id,
                event_id: fate.event_id.clone(),
                marked_sent: fate.sent,
                refusal_reported_as: None,
            });
        }
        if fate.shipped > 1 {
            return Err(ViolationKind::AppliedTwice {
                event_id: fate.event_id.clone(),
                outbox_id: fate.outbox_id,
                published: fate.published,
                shipped: fate.shipped,
            });
        }
    }
    errors
        .reported()
        .map_err(|(errors, example)| ViolationKind::DuplicateSurfacedAsError { errors, example })?;
    if let Some(fate) = fates.iter().find(|fate| fate.shipped == 0) {
        return Err(ViolationKind::NeverApplied {
            event_id: fate.event_id.clone(),
            outbox_id: fate.outbox_id,
            published: fate.published,
        });
    }
    Ok(())
}

/// Reads what became of every outbox row, notes it in the trace when there is one, and judges
/// it; returns the trace, for a scripted scenario that passed to offer.
pub(crate) async fn verdict(
    world: &World,
    steps: &[Result<Done, sqlx::Error>],
    during: Delivery,
    interleaving: Option<&mut kit::Interleaving>,
) -> Result<Option<Trace>, Violation> {
    let fates = (world.fates().await).map_err(Violation::setup(during))?;
    verdict_on(&fates, steps, during, interleaving)
}

/// The same verdict, on fates read another way (the Kafka track counts what was published in
/// its topic).
pub(crate) fn verdict_on(
    fates: &[RowFate],
    steps: &[Result<Done, sqlx::Error>],
    during: Delivery,
    interleaving: Option<&mut kit::Interleaving>,
) -> Result<Option<Trace>, Violation> {
    let trace: Option<Trace> = interleaving.map(|interleaving| {
        for fate in fates {
            interleaving.note(fate.summary());
        }
        interleaving.trace().clone()
    });
    judge(fates, steps).map_err(Violation::caught(during, trace.as_ref()))?;
    Ok(trace)
}
