//! The rule every scenario checks for each event it delivered more than once: it was credited
//! once. When it was not, what processed_events shows says why.

use crate::ViolationKind;
use crate::ledger::Ledger;
use crate::violation::Forgotten;

/// What the scenario saw of an event between its first delivery and the copy that followed a
/// prune: when each happened, and whether its row was gone after the prune.
pub(crate) struct Story {
    pub(crate) received: String,
    pub(crate) pruned: String,
    pub(crate) again: String,
    pub(crate) row_gone_after_prune: bool,
}

pub(crate) async fn credited_once(
    ledger: &Ledger,
    event: &str,
    story: Option<&Story>,
) -> Result<Result<(), ViolationKind>, kit::KitError> {
    let credits = ledger.credits(event).await?;
    if credits <= 1 {
        return Ok(Ok(()));
    }
    let rows = ledger.rows(event).await?;
    let event = event.to_string();
    Ok(Err(match story {
        _ if rows.len() > 1 => ViolationKind::KeyAdmitsTwice { event, rows },
        Some(story) if story.row_gone_after_prune => {
            ViolationKind::ForgotTooEarly(Box::new(Forgotten {
                event,
                received: story.received.clone(),
                pruned: story.pruned.clone(),
                again: story.again.clone(),
            }))
        }
        _ => ViolationKind::AppliedTwice { event, credits },
    }))
}
