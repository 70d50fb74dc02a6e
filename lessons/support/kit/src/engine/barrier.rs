use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};

use tokio::sync::Barrier;

use crate::servers::database::TestDatabase;
use crate::words::delivery::{Delivery, Rounds};
use crate::words::teaching::{Explain, Violation};

/// Starts `workers` tasks that all wait at one barrier and then run `work(i)` at the same
/// moment: the essay's test. Each task is spawned, so on a multi-thread runtime they really run
/// in parallel. Results come back in worker order.
///
/// A handler that panics (a `todo!()`, an `unwrap` on an error) panics in every worker: the
/// panic is reported once, when all have ended, with how many workers panicked.
///
/// This makes a race *likely*, not certain: how often the workers actually overlap depends on
/// the scheduler and on what else the machine is doing. A lesson pairs it with a scripted
/// [`Interleaving`](crate::Interleaving), which makes the race certain.
pub async fn release_together<T, F, Fut>(workers: usize, work: F) -> Vec<T>
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    quiet_worker_panics();
    let barrier = Arc::new(Barrier::new(workers));
    let panics = Arc::new(Panics::default());
    let tasks: Vec<_> = (0..workers)
        .map(|i| {
            let barrier = Arc::clone(&barrier);
            // A future does nothing until polled, so building it here starts no work early.
            let job = work(i);
            let job = WORKER_PANICS.scope(Arc::clone(&panics), job);
            tokio::spawn(async move {
                barrier.wait().await;
                job.await
            })
        })
        .collect();
    let mut results = Vec::with_capacity(workers);
    for task in tasks {
        match task.await {
            Ok(result) => results.push(result),
            Err(error) if error.is_panic() => {} // counted by the hook
            Err(error) => panic!("a worker released by the barrier was cancelled: {error}"),
        }
    }
    let panicked = panics.count.load(Ordering::SeqCst);
    if panicked > 0 {
        let first = panics.first.lock().expect("not poisoned").take();
        panic!(
            "{panicked} of {workers} workers released together panicked; the first {}",
            first.unwrap_or_else(|| "left no message".into())
        );
    }
    results
}

tokio::task_local! {
    /// Set while the maintainers' checks run a lesson's whole suite: see [`in_the_checks`].
    static IN_THE_CHECKS: ();
}

/// Runs `suite` as the maintainers' checks run a lesson's suite against each wrong fix: a
/// scenario made long for its students' sake (lesson 07's soak) asks [`checking`] and plays its
/// short form, which catches the same wrong fixes in a fraction of the time.
pub async fn in_the_checks<F: Future>(suite: F) -> F::Output {
    IN_THE_CHECKS.scope((), suite).await
}

/// Whether this task runs inside [`in_the_checks`].
pub fn checking() -> bool {
    IN_THE_CHECKS.try_with(|_| ()).is_ok()
}

#[derive(Default)]
struct Panics {
    count: AtomicUsize,
    /// The first panic as the default hook would print it: "panicked at file:line: message".
    first: Mutex<Option<String>>,
}

tokio::task_local! {
    /// Set while a barrier's worker runs: its panics are counted there, not printed.
    static WORKER_PANICS: Arc<Panics>;
}

/// Installs, once per process, a panic hook that counts the panics of barrier workers (and
/// leaves every other panic to the hook that was there before).
fn quiet_worker_panics() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let counted = WORKER_PANICS.try_with(|panics| {
                if panics.count.fetch_add(1, Ordering::SeqCst) == 0 {
                    *panics.first.lock().expect("not poisoned") = Some(info.to_string());
                }
            });
            if counted.is_err() {
                previous(info);
            }
        }));
    });
}

/// The pool a barrier test's workers share: the engine's, since it opens a connection on the
/// servers' floor for what the words' [`Rounds`] only tells.
impl Rounds {
    /// A pool on `db` with a connection for every worker, so that none waits for another's.
    pub async fn pool<K: Explain<Delivery>>(
        &self,
        db: &TestDatabase,
    ) -> Result<sqlx::PgPool, Violation<K, Delivery>> {
        let pool = db.pool(self.workers() as u32).await;
        pool.map_err(Violation::setup(self.set_up()))
    }
}
