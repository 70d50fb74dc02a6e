//! The races, forced: another worker's transaction, typed step by step as PostgreSQL's
//! isolation tester writes its sessions, holds the moment still while a delivery runs into it.
//! Each race is a spec in `specs/`; this file names it and tells its story.

use kit::spec::Spec;

use super::specs::{play, spec};
use crate::{Delivery, Handler, Subject, Violation};

/// Write skew between two cards (specs/write_skew.spec).
pub fn write_skew_spec() -> Spec {
    spec(
        "write_skew.spec",
        include_str!("../../specs/write_skew.spec"),
    )
}

/// The same card updated by another worker (specs/lost_update.spec).
pub fn lost_update_spec() -> Spec {
    spec(
        "lost_update.spec",
        include_str!("../../specs/lost_update.spec"),
    )
}

/// A copy of the event while the first delivery is inside its transaction
/// (specs/copy_race.spec).
pub fn copy_race_spec() -> Spec {
    spec("copy_race.spec", include_str!("../../specs/copy_race.spec"))
}

// ANCHOR: at_commit
/// Write skew, caught at COMMIT (specs/write_skew.spec). Judged: auth-1 ends decided, once, by
/// the delivery, with the other worker's 80.00 counted against the limit; a delivery that hands
/// the 40001 back has decided nothing.
pub async fn aborted_at_commit<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "auth-1 (80.00 on card-2) was delivered while another worker's approval of 80.00 on \
         card-1, for the same customer, was not committed yet (a scripted interleaving)",
    );
    let spec = write_skew_spec();
    play(subject, during, &spec, &spec.permutations[0]).await
}
// ANCHOR_END: at_commit

// ANCHOR: at_update
/// The lost update, caught at a statement (specs/lost_update.spec). Judged: auth-1 ends
/// decided, once, by the delivery, within the limit; the other worker's 30.00 leaves room for
/// it, so a delivery that hands the 40001 back has refused a payment nothing was wrong with.
pub async fn aborted_at_an_update<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "auth-1 (60.00 on card-2) was delivered while another worker's approval of 30.00 on the \
         same card was not committed yet (a scripted interleaving)",
    );
    let spec = lost_update_spec();
    play(subject, during, &spec, &spec.permutations[0]).await
}
// ANCHOR_END: at_update

// ANCHOR: copy_race
/// Guard 1's race, at SERIALIZABLE (specs/copy_race.spec): the copy's key is refused with
/// 23505, which means what it meant at every other level, that this event was decided already.
pub async fn copy_races_an_uncommitted_decision<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "auth-1 (60.00 on card-1) reached two workers, the second while the first was still \
         inside its transaction (a scripted interleaving)",
    );
    let spec = copy_race_spec();
    play(subject, during, &spec, &spec.permutations[0]).await
}
// ANCHOR_END: copy_race
