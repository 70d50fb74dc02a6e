use std::future::Future;
use std::sync::Arc;

use tokio::sync::Barrier;

/// Starts `workers` tasks that all wait at one barrier and then run `work(i)` at the same
/// moment: the essay's test. Each task is spawned, so on a multi-thread runtime they really run
/// in parallel. Results come back in worker order; a panic in a worker is re-raised here.
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
    let barrier = Arc::new(Barrier::new(workers));
    let tasks: Vec<_> = (0..workers)
        .map(|i| {
            let barrier = Arc::clone(&barrier);
            // A future does nothing until polled, so building it here starts no work early.
            let job = work(i);
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
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
    results
}
