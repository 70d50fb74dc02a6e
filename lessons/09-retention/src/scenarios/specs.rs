//! The lesson's scripted races and faults are data, `specs/*.spec`: how their runs of the prune
//! reach the handler, and which specs lesson 09's rules can judge. `lesson.rs` plays and judges
//! them: a fresh database whose processed_events holds ten rows received ten days before the
//! prune's time, the spec's sessions in its order (the kit's engine), then the rules.

use kit::spec::{Feed, Spec, SpecError};

use super::shown;
use crate::by_hand::Line;
use crate::{Prune, Pruned};

/// How the specs reach the prune (`deliver {JSON}`), and how a trace shows each run.
pub const FEED: Feed<Prune, Result<Pruned, sqlx::Error>> = Feed::new(read_prune, shown);

/// Each run of the prune a spec delivers: the rules judge whatever the prune can be handed, so
/// long as the lesson can read it.
pub fn delivered(spec: &Spec) -> Result<Vec<Prune>, SpecError> {
    spec.events("lesson 09", FEED.read)
}

/// A prune, read as `cargo workbook deliver 09` reads a prune's line (`{"prune_at": …}`).
fn read_prune(json: &str) -> Result<Prune, String> {
    match Line::from_json(json)? {
        Line::Prune(prune) => Ok(prune),
        Line::Credit(_) => {
            Err("a spec's deliveries are runs of the prune, {\"prune_at\": …}".into())
        }
    }
}
