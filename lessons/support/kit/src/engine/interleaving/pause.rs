//! A worker paused right after a commit, and resumed by a later step: the moment between a
//! commit and the handler's next statement, which no lock marks. A relay in front of the
//! worker's pool holds the server's answer to that commit back ([`Cut::PauseAfterCommit`]); the
//! worker counts as waiting until the script resumes it, so that other sessions can overtake it
//! there, every run.

use std::fmt;

use super::Interleaving;
use crate::servers::relay::{Cut, Relay};

/// What a paused worker is said to wait on: no session, but the script's `resume`.
pub(crate) const PAUSED: &str = "its resume";

impl Interleaving {
    /// Watches `relay`, which pauses `worker` after its first commit until
    /// [`Interleaving::resume`].
    pub(crate) fn pause_through(&mut self, worker: &str, relay: Relay) {
        debug_assert_eq!(relay.cut(), Cut::PauseAfterCommit);
        self.pauses.push((worker.to_string(), relay));
    }

    /// Whether `worker` is paused now: the server has committed, and the answer is held.
    pub(crate) fn paused(&self, worker: &str) -> bool {
        (self.pauses.iter()).any(|(w, relay)| w == worker && relay.paused())
    }

    /// Lets a paused `worker`'s answer through: it runs on from its commit.
    pub(crate) async fn resume(&mut self, worker: &str) {
        for (_, relay) in self.pauses.iter().filter(|(w, _)| w == worker) {
            relay.let_go().await;
        }
        self.trace
            .step(worker, "<resumed: the answer to its commit arrives>");
    }

    /// Says in the trace that `name` waits on `on`, or that it is paused.
    pub(super) fn trace_waits(&mut self, name: &str, shown_as: impl fmt::Display, on: &[String]) {
        if on != [PAUSED] {
            return self.trace.waits(name, shown_as, on);
        }
        let tag = (self.pauses.iter().find(|(w, _)| w == name))
            .map(|(_, relay)| relay.cut_after())
            .unwrap_or_default();
        let shown_as = shown_as.to_string();
        let space = if shown_as.is_empty() { "" } else { " " };
        let paused = format!(
            "{shown_as}{space}<paused once the server had committed ({tag}), the answer held \
             back>"
        );
        self.trace.waits_in_words(name, paused, on);
    }
}
