use super::{MAX_PASSES, consume_all, orders, prepare};
use crate::judge::verdict;
use crate::{Delivery, Done, Handler, Relay, Step, Subject, Violation};

/// Announcements in the outbox when the relays start.
const ROWS: usize = 40;

// ANCHOR: barrier
/// `relays` relays are released together by a barrier over an outbox of forty rows, as several
/// instances of the producer's service each run one; each passes until it finds nothing. Then
/// the consumer handles every message the broker holds. Each order must ship once.
pub async fn barrier<H: Handler>(subject: Subject<H>, relays: usize) -> Result<(), Violation> {
    let during = Delivery::Barrier { relays };
    let (db, world) = prepare(&subject, during).await?;
    (world.produce(&orders(ROWS)).await).map_err(Violation::setup(during))?;
    let pool = db
        .pool(relays as u32)
        .await
        .map_err(Violation::setup(during))?;
    let results = kit::release_together(relays, |_| {
        let (handler, pool) = (subject.handler.clone(), pool.clone());
        async move {
            let mut steps = Vec::new();
            for _ in 0..MAX_PASSES {
                let result = handler.call(pool.clone(), Step::Relay(Relay::new(5))).await;
                // A pass the database aborted (SQLSTATE class 40: a deadlock broken, a
                // serialization failure) rolled back, and its scheduler runs the next pass, as
                // this loop does: the abort is the database's, not the relay's, to report. What
                // the pass published before it is judged with everything else.
                if result.as_ref().is_err_and(rolled_back) {
                    continue;
                }
                let done = !matches!(result, Ok(Done::Relayed(n)) if n > 0);
                steps.push(result);
                if done {
                    break;
                }
            }
            steps
        }
    })
    .await;
    let mut steps: Vec<_> = results.into_iter().flatten().collect();
    steps.extend(consume_all(&subject, &world, &pool, 0, during).await?);
    verdict(&world, &steps, during, None).await.map(drop)
}
// ANCHOR_END: barrier

/// Whether the database rolled the relay's transaction back for it to be tried again (SQLSTATE
/// class 40, "transaction rollback").
fn rolled_back(error: &sqlx::Error) -> bool {
    kit::code_of(error).is_some_and(|code| code.starts_with("40"))
}
