//! The lesson's scripted races and faults are data, `specs/*.spec`: how their polls reach the
//! consumer, and which of them, a student's own included (`cargo workbook break 07`), lesson
//! 07's rule can judge. `lesson.rs` plays and judges them: a fresh database with ord-1 and
//! ord-2 placed and the groups registered; the spec's setup (its log) and sessions in its order
//! (the kit's engine); then a restarted consumer catches up, and the rule (`judge.rs`) holds
//! the orders to the model: every event of the log handled exactly once, in the log's order.

use kit::spec::{Feed, Spec, SpecError};

use super::{GROUP, shown};
use crate::{Poll, Polled};

/// How the specs reach the consumer (`deliver {JSON}`, a poll), and how a trace shows each.
pub const FEED: Feed<Poll, Result<Polled, sqlx::Error>> = Feed::new(read_poll, shown);

/// Each poll a spec delivers: the rule judges whatever the consumer can be handed, so long as
/// the lesson can read it.
pub fn delivered(spec: &Spec) -> Result<Vec<Poll>, SpecError> {
    spec.events("lesson 07", FEED.read)
}

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
