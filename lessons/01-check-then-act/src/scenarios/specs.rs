//! The lesson's scripted scenarios are data, `specs/*.spec`, and this is how every one of them
//! is played, a student's own included (`cargo workbook break 01`): on a fresh database with
//! each event's account open at zero (`lesson.rs`), the spec's sessions in its order (the kit's
//! engine), or its workers released together round after round (the kit's barrier), then the
//! rule (`judge.rs`) over what the account, `processed_events` and each delivery said.

use kit::spec::{Feed, Run, Spec, SpecError};
use kit::{Common, TestDatabase};

use super::AMOUNT_CENTS;
use crate::judge::judge;
use crate::ledger::Ledger;
use crate::{CreditEvent, Delivery, Handler, Outcome, Subject, Violation, ViolationKind};

/// How the specs reach the handler (`deliver {JSON}`, read as `cargo workbook deliver 01` reads
/// a credit), and how a trace shows each.
pub const FEED: Feed<CreditEvent, Result<Outcome, sqlx::Error>> = Feed::new(
    |json| CreditEvent::from_json(json).map_err(|e| e.to_string()),
    shown,
);

/// The events a spec delivers, one for each account: the lesson's rule is about one event
/// delivered more than once, so every delivery for one account carries the same one. An event
/// for another account is a neighbour, judged by the same rule.
pub fn your_events(spec: &Spec) -> Result<Vec<CreditEvent>, SpecError> {
    let account = |event: &CreditEvent| event.account().to_string();
    let named = |event: &CreditEvent| format!("{} for {}", event.id(), event.account());
    spec.one_event_each("lesson 01", FEED.read, account, named, "account")
}

/// The holder's lock on the account's row, for the scenarios still written in Rust: a worker
/// stops at its first touch of the account.
pub(super) const LOCK_ACCOUNT_ROW: &str =
    "BEGIN; SELECT 1 FROM accounts WHERE id = 'acc-1' FOR UPDATE";

/// How the trace shows a delivery.
pub(super) fn shown(event: &CreditEvent) -> String {
    format!("apply_credit({}, +{AMOUNT_CENTS})", event.id())
}

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject` on `db` (each event's account open at zero),
/// then judges it. What a delivery a fault ended reported is judged first: a sender that hears
/// "applied" delivers no more, so the redelivery the spec plays after it is one a real sender
/// would not make. Then the rule, for each event over its own account, and last, the waits: a
/// delivery the spec expects to wait that decided while the first delivery's transaction was
/// still open has guessed, and one for another account that waited was held up by a lock on a
/// neighbour.
pub(crate) async fn play<H: Handler>(
    subject: Subject<H>,
    db: &TestDatabase,
    ledger: &mut Ledger,
    run: Run<'_, Delivery>,
) -> Result<(), Violation> {
    let (spec, permutation, during) = (run.spec, run.permutation, run.during);
    let events = your_events(spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let mut played = run.play(db, &subject.handler, &FEED).await?;
    let mut observed = Vec::new();
    for event in &events {
        let account = event.account();
        let seen = (ledger.observe(account, event).await).map_err(Violation::setup(during))?;
        let credited = match seen.credits() {
            Some(credits) => format!("credited {credits} time(s)"),
            None => format!("holds {} cents", seen.balance_cents),
        };
        played.interleaving.note(format!(
            "{account} {credited}; processed_events holds {} row(s) for {}",
            seen.records,
            event.id()
        ));
        observed.push(seen);
    }
    let trace = played.interleaving.trace().clone();
    let caught = |kind| Violation {
        kind,
        during,
        trace: Some(trace.clone()),
    };
    if let Some(hidden) = played.hidden.take() {
        let waited_on_a_delivery =
            (hidden.waited_on.iter()).any(|on| spec.deliveries().iter().any(|(s, _, _)| s == on));
        return Err(caught(match waited_on_a_delivery {
            true => ViolationKind::WaitEndedTakenForADuplicate {
                outcome: hidden.reported,
            },
            false => ViolationKind::Common(Common::FailureHidden {
                outcome: hidden.reported,
                fault: hidden.fault,
            }),
        }));
    }
    for (event, observed) in events.iter().zip(observed) {
        let (outcomes, lost) = played.take_results(|delivered| delivered.id() == event.id());
        judge(observed, &outcomes, lost).map_err(&caught)?;
    }
    if (permutation.waits.iter()).any(|session| !played.waited(session)) {
        return Err(caught(ViolationKind::DecidedWithoutWaiting));
    }
    played.end(during)
}
// ANCHOR_END: play

/// One round of `specs/released.spec`: the workers released together with `event` returned
/// `outcomes`, and its account, opened at zero this round, must have moved once. A barrier
/// round has no script, so its message has no trace.
pub(crate) async fn judge_released(
    ledger: &Ledger,
    event: &CreditEvent,
    outcomes: Vec<Result<Outcome, sqlx::Error>>,
    during: Delivery,
) -> Result<(), Violation> {
    let observed = ledger.observe(event.account(), event).await;
    let observed = observed.map_err(Violation::setup(during))?;
    judge(observed, &outcomes, 0).map_err(Violation::caught(during, None))
}
