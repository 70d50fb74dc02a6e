//! The lesson's scripted scenarios are data, `specs/*.spec`: how their deliveries reach the
//! handler, and which of them, a student's own included (`cargo workbook break 13`), lesson
//! 13's rule can judge. `lesson.rs` plays and judges them.

use kit::spec::{Feed, Spec, SpecError};

use super::{described, shown};
use crate::{Authorization, Handled};

/// How the specs reach the handler (`deliver {JSON}`, read as `cargo workbook deliver 13` reads
/// a line), how a trace shows each, and what it returned.
pub const FEED: Feed<Authorization, Result<Handled, sqlx::Error>> = Feed::new(
    |json| Authorization::from_json(json).map_err(|e| e.to_string()),
    shown,
)
.describing(described);

/// Each delivery's authorization, read as `cargo workbook deliver 13` reads a line. A spec whose
/// deliveries the lesson cannot read is refused with the step's line.
pub fn your_events(spec: &Spec) -> Result<Vec<Authorization>, SpecError> {
    if let Some(permutation) = spec.permutations.iter().find(|p| !p.waits.is_empty()) {
        return Err(SpecError {
            line: permutation.line,
            message: "`expect wait` asks a delivery to be seen waiting, which lesson 13's rule \
                      does not judge (a retry may or may not wait): leave it out"
                .into(),
        });
    }
    spec.events("lesson 13", FEED.read)
}

/// The authorizations' ids, each once, in the order the spec first delivers it.
pub(crate) fn ids(events: &[Authorization]) -> Vec<&str> {
    let mut ids: Vec<&str> = Vec::new();
    for event in events {
        if !ids.contains(&event.id()) {
            ids.push(event.id());
        }
    }
    ids
}
