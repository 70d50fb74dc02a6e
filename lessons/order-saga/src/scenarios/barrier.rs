use super::{AMOUNT_CENTS, failed, prepare, succeeded};
use crate::judge::{Expect, verdict};
use crate::{Handler, PaymentEvent, Subject, Violation};

/// The fewest rounds a barrier test plays: a fresh order each round, and the first round that
/// catches a violation ends the test. One round catches a race only sometimes; `cargo repeat`
/// measures how often, and how many runs of all the rounds catch the exercise.
pub const BARRIER_ROUNDS: usize = 60;

/// Deliveries released in all the rounds of one barrier test, at the least. Two workers overlap
/// far less often than thirty-two: against lesson 04's exercise, measured with one of two cores
/// busy, 23 % of two-worker rounds caught the race and 92 % of eight-worker rounds, and sixty
/// two-worker rounds once caught nothing at all. So fewer workers play more rounds.
const DELIVERIES_RELEASED: usize = 480;

/// How many rounds a barrier test with `workers` workers plays.
pub fn barrier_rounds(workers: usize) -> usize {
    BARRIER_ROUNDS.max(DELIVERIES_RELEASED / workers.max(1))
}

/// Which events the workers of a barrier round deliver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mix {
    /// Every worker has the same payment.succeeded: redeliveries only (guard 1).
    SameEvent,
    /// Every worker has an event of its own, succeeded and failed alternating: no duplicate ids
    /// at all, only contradicting verdicts (guard 2).
    Contradicting,
    /// Half the workers have one payment.succeeded, half one payment.failed: duplicates and
    /// contradictions at once (every guard).
    Mixed,
}

impl Mix {
    fn events(self, round: usize, workers: usize) -> Vec<PaymentEvent> {
        let order = format!("ord-{round}");
        (0..workers)
            .map(|worker| match self {
                Mix::SameEvent => succeeded(&format!("pay-{round}"), &order),
                Mix::Contradicting if worker % 2 == 0 => {
                    succeeded(&format!("pay-{round}-{worker}"), &order)
                }
                Mix::Contradicting => failed(&format!("pay-{round}-{worker}"), &order),
                Mix::Mixed if worker % 2 == 0 => succeeded(&format!("pay-{round}-a"), &order),
                Mix::Mixed => failed(&format!("pay-{round}-b"), &order),
            })
            .collect()
    }
}

impl Mix {
    /// What each worker of a round is handed, as a message tells it.
    fn carrying(self) -> &'static str {
        match self {
            Mix::SameEvent => "the same payment.succeeded for one pending order",
            Mix::Contradicting => {
                "an event of its own (payment.succeeded and payment.failed alternating, every \
                 id different) for one pending order"
            }
            Mix::Mixed => {
                "one of two contradicting events (a payment.succeeded and a payment.failed, each \
                 delivered to half the workers) for one pending order"
            }
        }
    }
}

// ANCHOR: barrier
/// The essay's test, for the saga: `workers` tasks wait at a barrier and are released together,
/// each with its event for the same pending order. Whatever the mix, the order must be
/// resolved once, by one of the events, and announced once.
pub async fn barrier<H: Handler>(
    subject: Subject<H>,
    mix: Mix,
    workers: usize,
) -> Result<(), Violation> {
    let rounds = kit::Rounds::new(workers, mix.carrying(), barrier_rounds(workers));
    let (db, orders) = prepare(&subject, rounds.set_up()).await?;
    let pool = rounds.pool(&db).await?;

    for during in rounds.each() {
        let (round, order) = (during.round(), format!("ord-{}", during.round()));
        orders
            .place(&order, AMOUNT_CENTS)
            .await
            .map_err(Violation::setup(during))?;
        let events = mix.events(round, workers);

        let outcomes = kit::release_together(workers, |worker| {
            subject.handler.call(pool.clone(), events[worker].clone())
        })
        .await;

        let observed = orders
            .observe(&order, &events)
            .await
            .map_err(Violation::setup(during))?;
        let delivered: Vec<_> = events.iter().cloned().zip(outcomes).collect();
        let expect = Expect::ResolvedBy(events);
        verdict(&expect, &observed, &delivered, during, None)?;
    }
    Ok(())
}
// ANCHOR_END: barrier
