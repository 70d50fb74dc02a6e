use super::{GROUP, MAX_POLLS, order_ids, prepare};
use crate::judge::verdict;
use crate::log::Verdict;
use crate::scenarios::soak::generate;
use crate::{Delivery, Handler, Poll, Polled, Subject, Violation};

/// Orders in the barrier's log, and the seed that writes it (the same log every run).
const ORDERS: usize = 60;
const SEED: u64 = 7;

// ANCHOR: barrier
/// `consumers` consumers of one group are released together by a barrier, and each polls
/// until the log is consumed, as instances of one service do after a deploy. Whatever they
/// do to each other, every verdict must be handled exactly once.
pub async fn barrier<H: Handler>(subject: Subject<H>, consumers: usize) -> Result<(), Violation> {
    let during = Delivery::Barrier { consumers };
    let orders = order_ids(ORDERS);
    let (db, log) = prepare(&subject, during, &orders).await?;
    // No contradicting verdicts: the order in which consumers apply these does not change the
    // outcome, so this test is about what they do to each other, not about order (that is
    // `a_second_consumer_waits_its_turn`, scripted).
    let appended: Vec<Verdict> = generate(&mut fastrand::Rng::with_seed(SEED), &orders, false);
    (log.append(&appended).await).map_err(Violation::setup(during))?;
    let pool = db
        .pool(consumers as u32)
        .await
        .map_err(Violation::setup(during))?;
    let results = kit::release_together(consumers, |_| {
        let (handler, pool) = (subject.handler.clone(), pool.clone());
        async move {
            let mut polls = Vec::new();
            for _ in 0..MAX_POLLS {
                let result = handler.call(pool.clone(), Poll::new(GROUP, 5)).await;
                let done = !matches!(result, Ok(Polled { handled }) if handled > 0);
                polls.push(result);
                if done {
                    break;
                }
            }
            polls
        }
    })
    .await;
    let polls: Vec<_> = results.into_iter().flatten().collect();
    verdict(&log, &orders, &appended, &polls, false, during, None)
        .await
        .map(drop)
}
// ANCHOR_END: barrier
