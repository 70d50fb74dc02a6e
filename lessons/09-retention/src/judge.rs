//! The rules every scenario checks: each event delivered more than once was credited once (when
//! it was not, what processed_events shows says why), and nothing received more than the
//! retention limit ago is left once the prune has run.

use chrono::{DateTime, Utc};

use crate::ledger::Ledger;
use crate::scenarios::shown_time;
use crate::violation::Forgotten;
use crate::{Credit, Delivery, RETENTION_LIMIT, Violation, ViolationKind};

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

/// `event` was credited once; `story`, when a copy followed a prune, says what came between.
pub(crate) async fn once(
    ledger: &Ledger,
    event: &Credit,
    story: Option<&Story>,
    during: Delivery,
) -> Result<(), Violation> {
    credited_once(ledger, &event.id, story)
        .await
        .map_err(Violation::setup(during))?
        .map_err(Violation::caught(during, None))
}

/// Nothing received more than the retention limit before `now` is left.
pub(crate) async fn nothing_kept_too_long(
    ledger: &Ledger,
    now: DateTime<Utc>,
    during: Delivery,
) -> Result<(), Violation> {
    let left = ledger
        .received_before(now - RETENTION_LIMIT)
        .await
        .map_err(Violation::setup(during))?;
    match left.oldest {
        Some(oldest) if left.rows > 0 => Err(Violation {
            kind: ViolationKind::KeptTooLong {
                rows: left.rows,
                oldest,
                now: shown_time(now),
            },
            during,
            trace: None,
        }),
        _ => Ok(()),
    }
}
