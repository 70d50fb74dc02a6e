//! The lesson's scripted races and faults are data, `specs/*.spec`, and this is how every one of
//! them is played: a fresh database whose processed_events holds ten rows received ten days
//! before the prune's time, the spec's sessions in its order (the kit's engine), then the rule:
//! no prune waited for a delivery, a prune a fault ended said so, every other prune succeeded,
//! and no row is kept too long.

use chrono::TimeDelta;
use kit::Common;
use kit::spec::Run;

use super::{failed, prepare, shown, t0};
use crate::by_hand::Line;
use crate::judge::nothing_kept_too_long;
use crate::{Delivery, Handler, Prune, Pruned, Subject, Violation, ViolationKind};

kit::lesson_specs!(
    feed: Prune => Pruned, read: read_prune, shown: shown,
    check: delivered,
    yours: "the prunes ran in the order your spec gives (a scripted interleaving)",
);

/// A prune, read as `cargo workbook deliver 09` reads a prune's line (`{"prune_at": …}`).
fn read_prune(json: &str) -> Result<Prune, String> {
    match Line::from_json(json)? {
        Line::Prune(prune) => Ok(prune),
        Line::Credit(_) => {
            Err("a spec's deliveries are runs of the prune, {\"prune_at\": …}".into())
        }
    }
}

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject`, then judges it. Every violation carries
/// the trace.
async fn play<H: Handler>(subject: Subject<H>, run: Run<'_, Delivery>) -> Result<(), Violation> {
    let during = run.during;
    let (db, ledger, _pool) = prepare(&subject, 1, during).await?;
    let received = t0() - TimeDelta::days(10);
    (ledger.backlog("evt-old-", 10, received).await).map_err(Violation::setup(during))?;
    let played = run.play(&db, &subject.handler, &FEED).await?;
    let trace = played.interleaving.trace().clone();
    let traced = |mut violation: Violation| {
        violation.trace = Some(trace.clone());
        violation
    };
    let caught = |kind| {
        traced(Violation {
            kind,
            during,
            trace: None,
        })
    };
    // A prune a fault ended is no one's answer, unless it reported success all the same: then
    // its scheduler believes the rows are gone.
    if let Some(hidden) = &played.hidden {
        let (outcome, fault) = (hidden.reported, hidden.fault);
        return Err(caught(ViolationKind::Common(Common::FailureHidden {
            outcome,
            fault,
        })));
    }
    for (session, _, outcome) in &played.delivered {
        if played.waited(session) {
            return Err(caught(ViolationKind::PruneWaited {
                on: "the delivery".to_string(),
            }));
        }
        if let Err(error) = outcome {
            return Err(traced(failed(error, during)));
        }
    }
    nothing_kept_too_long(&ledger, t0(), during)
        .await
        .map_err(traced)?;
    kit::passing_trace(&trace);
    Ok(())
}
// ANCHOR_END: play
