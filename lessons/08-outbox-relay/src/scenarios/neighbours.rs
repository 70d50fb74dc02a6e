use kit::Script;

use super::{orders, prepare, relay_until_empty, shown};
use crate::judge::verdict;
use crate::{Delivery, Handler, Step, Subject, Violation};

/// Another instance of the consumer, half-way through handling a copy of ord-1's message: its
/// inbox row is written and not committed yet.
const HANDLING_ORD_1: &str = "BEGIN; INSERT INTO inbox (id) VALUES ('ord-1:order')";

// ANCHOR: other_orders
/// While a consumer of ord-1's message waits on another instance's uncommitted inbox row for
/// that message, a consumer of ord-2's message must go through without waiting: the inbox key
/// touches only the message it names. A consumer that locks the whole inbox, or takes one
/// advisory lock for every message, still ships each order once, but one slow shipment then
/// holds up every order's.
pub async fn other_orders_do_not_wait<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "another consumer instance was handling a copy of ord-1's message, ord-1's message \
         reached a consumer, and meanwhile ord-2's message reached a second consumer (a \
         scripted interleaving)",
    );
    let (db, world) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    (world.produce(&orders(2)).await).map_err(Violation::setup(during))?;
    let mut steps = relay_until_empty(&subject, &pool).await;
    let (messages, _) = (world.messages_after(0).await).map_err(Violation::setup(during))?;
    // The relay's own failure, if it published less, is what the verdict then reports.
    let mut messages = messages.into_iter();
    let (Some(this), Some(other)) = (messages.next(), messages.next()) else {
        return verdict(&world, &steps, during, None).await.map(drop);
    };
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "handling", HANDLING_ORD_1)
        .sql("holder", "rollback", "ROLLBACK")
        .deliver("worker-1", "first", Step::Consume(this))
        .deliver("worker-2", "other", Step::Consume(other));
    // ANCHOR_END: other_orders
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "handling first other rollback",
        kit::describe_outcome,
        during,
    )
    .await?;
    let waited = ran.waited("worker-2");
    steps.extend(ran.outcomes.into_iter().map(|(_, outcome)| outcome));
    let trace = verdict(&world, &steps, during, Some(&mut interleaving)).await?;
    let trace = trace.expect("a scripted verdict returns its trace");
    Violation::unless_waited(waited, "ord-2", "ord-1's inbox row", during, &trace)
}
