use super::{credit_event, prepare};
use crate::judge::judge;
use crate::{Delivery, Handler, Subject, Violation};

/// Rounds per barrier test. One round catches check-then-act only sometimes (how often depends
/// on the scheduler and the machine's load); many rounds, each a fresh account and event, make
/// a pass against the broken handler vanishingly unlikely. `cargo repeat 01` measures both: how
/// many runs caught the exercise, and what share of rounds did.
pub const BARRIER_ROUNDS: usize = 60;

/// Deliveries released in all the rounds of one barrier test, at the least. Rounds are not
/// independent: under load the scheduler can serialise a whole run's workers. Measured with one
/// of two cores busy, one of fifty 60-round runs with two workers caught nothing, although 44 %
/// of their rounds caught the race on average. So fewer workers play more rounds.
const DELIVERIES_RELEASED: usize = 480;

/// How many rounds a barrier test with `workers` workers plays.
pub fn barrier_rounds(workers: usize) -> usize {
    BARRIER_ROUNDS.max(DELIVERIES_RELEASED / workers.max(1))
}

// ANCHOR: barrier
/// The essay's test: `workers` tasks wait at a barrier, are released together with the same
/// event, and the balance must move once. Repeated for [`barrier_rounds`] rounds; the first
/// round that catches a violation ends the test.
pub async fn barrier<H: Handler>(subject: Subject<H>, workers: usize) -> Result<(), Violation> {
    let rounds = kit::rounds(barrier_rounds(workers));
    let setup = Delivery::Barrier {
        workers,
        round: 0,
        rounds,
    };
    let (db, ledger) = prepare(&subject, setup).await?;
    let pool = db
        .pool(workers as u32)
        .await
        .map_err(Violation::setup(setup))?;

    for round in 1..=rounds {
        let during = Delivery::Barrier {
            workers,
            round,
            rounds,
        };
        let account = format!("acc-{round}");
        ledger
            .open_account(&account)
            .await
            .map_err(Violation::setup(during))?;
        let event = credit_event(&format!("evt-{round}"), &account);

        let outcomes = kit::release_together(workers, |_| {
            subject.handler.call(pool.clone(), event.clone())
        })
        .await;

        let observed = ledger
            .observe(&account, &event)
            .await
            .map_err(Violation::setup(during))?;
        judge(observed, &outcomes, 0).map_err(Violation::caught(during, None))?;
    }
    Ok(())
}
// ANCHOR_END: barrier
