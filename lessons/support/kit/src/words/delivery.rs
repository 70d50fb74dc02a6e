//! How the events reached the code under test: the opening of every message ("{during}: …").

use std::fmt;

/// How a scenario delivered its events, told in a sentence.
#[derive(Debug, Clone, Copy)]
pub enum Delivery {
    /// A scenario's story, in one sentence.
    Story(&'static str),
    /// `workers` workers released together by a barrier, each with `carrying` (the lesson's
    /// events, as they end "each with …"), in round `round` of `rounds`.
    Barrier {
        workers: usize,
        carrying: &'static str,
        round: usize,
        rounds: usize,
    },
}

impl Delivery {
    /// The round a barrier test was in (1 for a story): how `cargo repeat` counts rounds.
    pub fn round(&self) -> usize {
        match *self {
            Delivery::Barrier { round, .. } => round,
            Delivery::Story(_) => 1,
        }
    }
}

impl fmt::Display for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Delivery::Story(story) => f.write_str(story),
            Delivery::Barrier {
                workers,
                carrying,
                round,
                rounds,
            } => write!(
                f,
                "{workers} workers were released together by a barrier, each with {carrying} \
                 (round {round} of {rounds})"
            ),
        }
    }
}
