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

/// A race or fault test's result as `cargo repeat` counts it: passed, caught for the lesson's
/// reason (`intended`) in the round `round_of` reads from how it was delivered, or failed for
/// any other reason.
pub fn verdict<K: kit::Explain<D>, D>(
    result: Result<(), kit::Violation<K, D>>,
    intended: fn(&K) -> bool,
    round_of: fn(&D) -> usize,
) -> Verdict {
    match result {
        Ok(()) => Verdict::Passed,
        Err(violation) if intended(&violation.kind) => Verdict::Caught {
            round: round_of(&violation.during),
        },
        Err(violation) => Verdict::Other(violation.to_string()),
    }
}

/// A lesson's race and fault tests as probes: each `test` named and played for its rounds,
/// run against the side `repeat` asks for, and judged by [`verdict`].
pub fn probes<T, K, D, Fut>(
    tests: &[T],
    name: fn(&T) -> String,
    rounds: fn(&T) -> usize,
    run: fn(T, Side) -> Fut,
    intended: fn(&K) -> bool,
    round_of: fn(&D) -> usize,
) -> Vec<Probe>
where
    T: Copy + Send + Sync + 'static,
    K: kit::Explain<D> + 'static,
    D: 'static,
    Fut: Future<Output = Result<(), kit::Violation<K, D>>> + 'static,
{
    (tests.iter())
        .map(|&test| {
            Probe::new(name(&test), rounds(&test), move |side| async move {
                verdict(run(test, side).await, intended, round_of)
            })
        })
        .collect()
}

/// The tests of a lesson's `exercise-tests.rs` that `cargo repeat` counts: those `repeat` names
/// (a parametrised test by its name, for all of its cases), in the file's order, each played
/// by `run` and judged by [`verdict`]. A barrier test's rounds are its list's (`listed`: a
/// released spec's), or come from its case, the number of workers, through `rounds`
/// (`scenarios::barrier_rounds`).
#[allow(clippy::too_many_arguments)]
pub fn probes_of<K, D, Fut>(
    tests: &'static [&'static str],
    cases: &'static [(&'static str, &'static str)],
    repeat: &[&str],
    listed: fn(&str) -> Option<usize>,
    rounds: fn(usize) -> usize,
    run: fn(&'static str, Side) -> Fut,
    intended: fn(&K) -> bool,
    round_of: fn(&D) -> usize,
) -> Vec<Probe>
where
    K: kit::Explain<D> + 'static,
    D: 'static,
    Fut: Future<Output = Result<(), kit::Violation<K, D>>> + 'static,
{
    for name in repeat {
        let known = tests.iter().any(|t| t.split("::").next() == Some(*name));
        assert!(
            known,
            "repeat names {name:?}, which is not among the lesson's tests"
        );
    }
    (tests.iter())
        .filter(|test| repeat.contains(&test.split("::").next().unwrap_or(test)))
        .map(|&test| {
            let workers = (cases.iter())
                .find(|(case, _)| *case == test)
                .and_then(|(_, value)| value.parse().ok());
            let rounds = listed(test).or(workers.map(rounds)).unwrap_or(1);
            Probe::new(test, rounds, move |side| async move {
                verdict(run(test, side).await, intended, round_of)
            })
        })
        .collect()
}
