//! A cut after every commit (`cut SESSION after every commit`) is one play per commit: the
//! first play counts the commits the handler makes, and each later play cuts after one of them.
//! The runs are the spec's, played again by the lesson's own `play`; which commit a run aims at,
//! and how many the counting run saw, pass through this task-local, so that no lesson's `play`
//! has to carry them.

use std::cell::Cell;
use std::future::Future;

tokio::task_local! {
    static POINTS: Points;
}

struct Points {
    /// The commit this run cuts after; none in the counting run.
    aimed: Option<usize>,
    /// The most commits a cut worker made in this run.
    counted: Cell<usize>,
}

/// The commit this run cuts after (none: it counts them).
pub(crate) fn aimed() -> Option<usize> {
    POINTS.try_with(|points| points.aimed).ok().flatten()
}

/// Notes that a cut worker made `commits` commits in this run.
pub(crate) fn counted(commits: usize) {
    let _ = POINTS.try_with(|points| points.counted.set(points.counted.get().max(commits)));
}

/// Runs `play` cutting after commit `aimed` (or counting, if none), and returns what it
/// returned with the commits counted.
pub async fn at_commit<F: Future>(aimed: Option<usize>, play: F) -> (F::Output, usize) {
    let points = Points {
        aimed,
        counted: Cell::new(0),
    };
    POINTS
        .scope(points, async {
            let output = play.await;
            (output, POINTS.with(|points| points.counted.get()))
        })
        .await
}

/// Plays `play` once; where `cuts` (the permutation cuts a worker after every commit), once to
/// count the commits, then once cut after each of them, the first failure ending it. Each play
/// is boxed: a lesson's play is a large future, and three of them inline overflow a test's stack
/// in a debug build.
pub async fn at_each_commit<V, F: Future<Output = Result<(), V>>>(
    cuts: bool,
    play: impl Fn() -> F,
) -> Result<(), V> {
    if !cuts {
        return play().await;
    }
    let at = |commit| Box::pin(at_commit(commit, play()));
    let (counted, commits) = at(None).await;
    counted?;
    for commit in 1..=commits {
        let (cut, _) = at(Some(commit)).await;
        cut?;
    }
    Ok(())
}
