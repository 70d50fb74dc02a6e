//! A race test as `cargo repeat` runs it: against the shipped exercise or the solution, with
//! the result reduced to what the count needs.

use std::future::Future;
use std::pin::Pin;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Exercise,
    Solution,
}

/// What one run of a race test found.
#[derive(Debug)]
pub enum Verdict {
    Passed,
    /// Failed for the lesson's reason, in this round (1 for a scripted test).
    Caught {
        round: usize,
    },
    /// Failed for any other reason: the message says which.
    Other(String),
}

// Not `Send`: the scenarios' futures are, but proving it through this erased type runs into a
// compiler limitation (rust-lang/rust#100013), and `cargo repeat` awaits them in place.
type Run = dyn Fn(Side) -> Pin<Box<dyn Future<Output = Verdict>>> + Send + Sync;

pub struct Probe {
    pub name: String,
    /// The rounds one run plays when nothing is caught: a barrier test's rounds, or 1.
    pub rounds: usize,
    run: Box<Run>,
}

impl Probe {
    pub fn new<F, Fut>(name: impl Into<String>, rounds: usize, run: F) -> Probe
    where
        F: Fn(Side) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Verdict> + 'static,
    {
        Probe {
            name: name.into(),
            rounds,
            run: Box::new(move |side| Box::pin(run(side))),
        }
    }

    pub async fn run(&self, side: Side) -> Verdict {
        (self.run)(side).await
    }
}
