//! How the events reached the code under test: the opening of every message ("{during}: …").

use std::fmt;
use std::future::Future;

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

impl From<&'static str> for Delivery {
    fn from(story: &'static str) -> Self {
        Delivery::Story(story)
    }
}

/// A round of a spec's `barrier N workers, R rounds`, told as a barrier's, each worker
/// with what the lesson says it was handed ([`crate::Lesson::carried`]).
impl From<Round> for Delivery {
    fn from(round: Round) -> Self {
        Delivery::Barrier {
            workers: round.workers,
            carrying: round.carrying,
            round: round.round,
            rounds: round.rounds,
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

/// A round of workers released together (a spec's `barrier N workers, R rounds`), as a
/// lesson's [`Delivery`](crate::Lesson::Delivery) tells it: round 0 is the setup, before any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Round {
    pub workers: usize,
    pub round: usize,
    pub rounds: usize,
    /// What each worker is handed, as a message tells it: "the same order.created".
    pub carrying: &'static str,
}

impl fmt::Display for Round {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Round {
            workers,
            round,
            rounds,
            ..
        } = *self;
        write!(
            f,
            "reached {workers} workers at once (released together by a barrier, round {round} \
             of {rounds})"
        )
    }
}

/// A barrier test's rounds, told as [`Delivery::Barrier`]: `workers` workers, each handed
/// `carrying`, for the rounds the lesson sets (fewer inside [`with_one_round`]).
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
            rounds: rounds(full),
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

    /// How many workers each round releases.
    pub(crate) fn workers(&self) -> usize {
        self.workers
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

tokio::task_local! {
    /// Set by the maintainers' quick checks while they run a lesson's suite against a fix that
    /// the catalogue says is correct: see [`with_one_round`].
    static ROUNDS_AT_MOST: usize;
}

/// How many rounds a barrier test plays: `full`, as the lesson sets it for its students, or one
/// inside [`with_one_round`].
pub fn rounds(full: usize) -> usize {
    ROUNDS_AT_MOST
        .try_with(|most| full.min(*most))
        .unwrap_or(full)
        .max(1)
}

/// Runs `suite` with every barrier test playing one round. For the quick checks of the
/// catalogue's correct alternatives: a correct fix is checked to pass every scenario of each
/// size, and the rounds after the first, which cannot catch what is not there, were most of the
/// suite's time. The full sweep (`cargo workbook verify`) plays every round a student's run
/// plays, for every entry.
pub async fn with_one_round<F: Future>(suite: F) -> F::Output {
    ROUNDS_AT_MOST.scope(1, suite).await
}
