//! The lesson's scripted races and faults are data, `specs/*.spec`, and this is how every one of
//! them is played, a student's own included (`cargo workbook break 07`): a fresh database with
//! ord-1 and ord-2 placed and the groups registered; the spec's setup (its log) and sessions in
//! its order (the kit's engine); then a restarted consumer catches up, and the rule
//! (`judge.rs`) holds the orders to the model: every event of the log handled exactly once, in
//! the log's order.

use kit::spec::Run;

use super::{GROUP, catch_up_then_verdict, order_ids, prepare, shown};
use crate::{Delivery, Handler, Poll, Polled, Subject, Violation};

kit::lesson_specs!(
    feed: Poll => Polled, read: read_poll, shown: shown,
    check: delivered,
    yours: "the consumers polled in the order your spec gives (a scripted interleaving)",
);

/// A poll, as a spec delivers it: `{"group": "saga", "max": N}`.
fn read_poll(json: &str) -> Result<Poll, String> {
    let wanted = format!("a poll is {{\"group\": \"{GROUP}\", \"max\": N}}, N at least 1");
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("it is not JSON ({e}); {wanted}"))?;
    let group = value.get("group").and_then(|g| g.as_str());
    let max = value.get("max").and_then(|m| m.as_i64());
    match (group, max) {
        (Some(GROUP), Some(max)) if max >= 1 => Ok(Poll::new(GROUP, max)),
        _ => Err(wanted),
    }
}

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject`, then a restarted consumer catches up, as
/// many events a poll as the spec's first poll took, and the rule judges every poll. A poll a
/// fault ended is judged too if it reported success all the same: the offset it claims to have
/// moved is the one a restarted consumer trusts.
async fn play<H: Handler>(subject: Subject<H>, run: Run<'_, Delivery>) -> Result<(), Violation> {
    let during = run.during;
    let first = delivered(run.spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let orders = order_ids(2);
    let (db, log) = prepare(&subject, during, &orders).await?;
    let mut played = run.play(&db, &subject.handler, &FEED).await?;
    let appended = (log.appended().await).map_err(Violation::setup(during))?;
    let mut polls: Vec<_> = (played.delivered.drain(..))
        .map(|(_, _, outcome)| outcome)
        .collect();
    polls.extend(played.hidden.take().map(|hidden| Ok(hidden.reported)));
    let max = first[0].max();
    // One consumer, then the restarted one: no two polls overlapped.
    let one_at_a_time = run.spec.deliveries().len() == 1;
    let lists = (&orders[..], &appended[..]);
    let interleaving = &mut played.interleaving;
    let trace = catch_up_then_verdict(
        &subject,
        (&db, &log),
        lists,
        polls,
        (max, one_at_a_time),
        during,
        interleaving,
    )
    .await?;
    if let Some(trace) = trace {
        kit::passing_trace(&trace);
    }
    Ok(())
}
// ANCHOR_END: play
