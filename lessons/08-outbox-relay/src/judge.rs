//! The one rule every scenario checks, per announcement the producer committed: the broker has
//! it at least once, and the warehouse shipped it exactly once; the steps' reports call no
//! duplicate an error.

use kit::{Common, is_unique_violation};

use crate::world::RowFate;
use crate::{Done, ViolationKind};

pub(crate) fn judge(
    fates: &[RowFate],
    steps: &[Result<Done, sqlx::Error>],
) -> Result<(), ViolationKind> {
    let errors = || steps.iter().filter_map(|step| step.as_ref().err());
    if let Some(error) = errors().find(|error| !is_unique_violation(error)) {
        return Err(ViolationKind::Common(Common::failed(error)));
    }
    for fate in fates {
        if fate.published == 0 {
            return Err(ViolationKind::NeverPublished {
                outbox_id: fate.outbox_id,
                event_id: fate.event_id.clone(),
                marked_sent: fate.sent,
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
    if let Some(example) = errors().next() {
        return Err(ViolationKind::DuplicateSurfacedAsError {
            errors: errors().count(),
            example: kit::describe_sqlx(example),
        });
    }
    if let Some(fate) = fates.iter().find(|fate| fate.shipped == 0) {
        return Err(ViolationKind::NeverApplied {
            event_id: fate.event_id.clone(),
            outbox_id: fate.outbox_id,
            published: fate.published,
        });
    }
    Ok(())
}
