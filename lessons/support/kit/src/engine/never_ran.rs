//! Fault steps that found nothing to end. A kill, cancel or abandon aimed at a delivery that
//! has already returned does nothing (and so does a cut aimed at one that never commits), and
//! rightly: a correct handler may finish before the moment a wrong one would still be waiting. A spec of a student's own, though, wants to know
//! that its step never happened (`cargo workbook break`), so the steps are noted for whoever
//! asks, as passing traces are.

use std::cell::RefCell;
use std::future::Future;

tokio::task_local! {
    static NEVER_RAN: RefCell<Vec<String>>;
}

/// Notes that `step` found `worker` returned, with nothing left to `verb`.
pub(crate) fn never_ran(step: &str, worker: &str, verb: &str) {
    let _ = NEVER_RAN.try_with(|noted| {
        noted.borrow_mut().push(format!(
            "step `{step}` never ran: {worker} had already returned, so there was nothing to \
             {verb}"
        ))
    });
}

/// Notes that `step`, a cut at `worker`'s COMMIT, found none to cut.
pub(crate) fn never_cut(step: &str, worker: &str) {
    let _ = NEVER_RAN.try_with(|noted| {
        noted.borrow_mut().push(format!(
            "step `{step}` never ran: {worker}'s handler committed nothing through its \
             connection, so there was no COMMIT to cut"
        ))
    });
}

/// Runs `scenario` and returns its result with the fault steps that never ran, in words.
pub async fn steps_that_never_ran<F: Future>(scenario: F) -> (F::Output, Vec<String>) {
    NEVER_RAN
        .scope(RefCell::new(Vec::new()), async {
            let output = scenario.await;
            (output, NEVER_RAN.with(|noted| noted.take()))
        })
        .await
}
