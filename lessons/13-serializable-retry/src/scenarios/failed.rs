use kit::Fault;
use kit::spec::Spec;

use super::specs::{play, spec};
use crate::{Delivery, Handler, Subject, Violation};

/// A COMMIT cancelled, then one whose connection is lost, each followed by the redelivery
/// (specs/failed.spec).
pub fn failed_spec() -> Spec {
    spec("failed.spec", include_str!("../../specs/failed.spec"))
}

// ANCHOR: killed
/// The connection is lost during COMMIT: the worker's session is terminated while its COMMIT
/// waits. The worker cannot know whether the approval committed; the card network, hearing
/// nothing, sends auth-1 again, to another worker. Whatever the first delivery did, auth-1 is
/// decided once.
pub async fn killed_at_commit_then_redelivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    failed_then_redelivered(subject, Fault::Killed).await
}
// ANCHOR_END: killed

/// The same with the COMMIT cancelled (57014, as a statement timeout would): the transaction
/// rolls back, and the delivery must say it failed, so that the network sends it again.
pub async fn cancelled_at_commit_then_redelivery<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    failed_then_redelivered(subject, Fault::Cancelled).await
}

async fn failed_then_redelivered<H: Handler>(
    subject: Subject<H>,
    fault: Fault,
) -> Result<(), Violation> {
    let during = Delivery::Story(match fault {
        Fault::Killed => {
            "auth-1 (60.00 on card-1) was delivered, the worker's connection was lost while its \
             COMMIT waited, and auth-1 was delivered again (a scripted crash)"
        }
        Fault::Cancelled => {
            "auth-1 (60.00 on card-1) was delivered, its COMMIT was cancelled while it waited \
             (as a statement timeout would), and auth-1 was delivered again on another \
             connection (a scripted interleaving)"
        }
    });
    let spec = failed_spec();
    // The spec's first order cancels worker-1's COMMIT, its second kills its session.
    let permutation = &spec.permutations[usize::from(fault == Fault::Killed)];
    play(subject, during, &spec, permutation).await
}
