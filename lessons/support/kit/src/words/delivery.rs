//! How the events reached the code under test: the opening of every message ("{during}: …").

use std::fmt;

use crate::servers::database::TestDatabase;
use crate::words::teaching::{Explain, Violation};

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

/// A barrier test's rounds, told as [`Delivery::Barrier`]: `workers` workers, each handed
/// `carrying`, for the rounds the lesson sets (fewer inside [`crate::with_one_round`]).
#[derive(Debug, Clone, Copy)]
pub struct Rounds {
    workers: usize,
    carrying: &'static str,
    rounds: usize,
}

impl Rounds {
    pub fn new(workers: usize, carrying: &'static str, full: usize) -> Rounds {
        Rounds {
            workers,
            carrying,
            rounds: crate::rounds(full),
        }
    }

    /// How the test's setup is told, before any round (round 0).
    pub fn set_up(&self) -> Delivery {
        self.round(0)
    }

    /// Each round in turn, as a failure in it is told; the first round that fails ends the test.
    pub fn each(&self) -> impl Iterator<Item = Delivery> + use<> {
        let this = *self;
        (1..=this.rounds).map(move |round| this.round(round))
    }

    /// A pool on `db` with a connection for every worker, so that none waits for another's.
    pub async fn pool<K: Explain<Delivery>>(
        &self,
        db: &TestDatabase,
    ) -> Result<sqlx::PgPool, Violation<K, Delivery>> {
        let pool = db.pool(self.workers as u32).await;
        pool.map_err(Violation::setup(self.set_up()))
    }

    fn round(&self, round: usize) -> Delivery {
        Delivery::Barrier {
            workers: self.workers,
            carrying: self.carrying,
            round,
            rounds: self.rounds,
        }
    }
}
