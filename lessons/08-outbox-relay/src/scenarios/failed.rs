use kit::{Fault, Script};

use super::{MAX, consume_all, one_published_message, orders, play_then_drain, prepare, shown};
use crate::judge::verdict;
use crate::{Delivery, Done, Handler, Relay, Step, Subject, Violation};

/// The holder's locks: a relay stops as it writes down what it sent (a mark on the outbox
/// rows, or its progress), after it has published.
pub(crate) const LOCK_THE_RELAYS_WRITES: &str =
    "BEGIN; LOCK TABLE outbox, relay_progress IN SHARE MODE";

/// The holder's lock on the warehouse's table: a consumer stops as it ships.
const LOCK_SHIPMENTS: &str = "BEGIN; LOCK TABLE shipments IN SHARE MODE";

// ANCHOR: relay_crash
/// The relay's crash window: a relay publishes two rows, then dies before its record of having
/// sent them commits. The broker has the messages; the relay's database does not know. The next
/// relay publishes them again, and the consumer then handles every message the broker holds.
/// Each order must ship once.
pub async fn relay_crashes_between_publish_and_mark<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "a relay published two outbox rows and died before it had recorded sending them; \
         another relay took over, and the consumer handled every message (a scripted crash)",
    );
    relay_killed(subject, during, LOCK_THE_RELAYS_WRITES).await
}
// ANCHOR_END: relay_crash

/// The holder's lock on the broker: a relay stops inside its publish.
const LOCK_THE_BROKER: &str = "BEGIN; LOCK TABLE broker.messages IN SHARE MODE";

// ANCHOR: relay_dies_publishing
/// The relay's other crash window: it dies while it publishes, before the broker has the first
/// row. Whatever it had written down about those rows must not outlive it, or the next relay
/// passes over rows the broker never got. A relay is killed at each of its steps: here, and
/// between its publish and its mark (above).
pub async fn relay_dies_while_it_publishes<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "a relay took two outbox rows and died while it published the first, before the broker \
         had it; another relay took over, and the consumer handled every message (a scripted \
         crash)",
    );
    relay_killed(subject, during, LOCK_THE_BROKER).await
}

/// Two orders in the outbox; the holder takes `lock`, and a relay runs until it stops on it;
/// the relay is killed there, the holder lets go, another relay takes over, and the consumer
/// handles every message the broker holds. Each order must ship once.
async fn relay_killed<H: Handler>(
    subject: Subject<H>,
    during: Delivery,
    lock: &str,
) -> Result<(), Violation> {
    let (db, world) = prepare(&subject, during).await?;
    (world.produce(&orders(2)).await).map_err(Violation::setup(during))?;
    let script = relay_crash(&subject.handler, lock);
    let order = (RELAY_CRASH_ORDER, Some("relay-1"));
    play_then_drain(&subject, (&db, &world), script, order, during).await
}

/// The order [`relay_crash`]'s steps are played in.
pub(crate) const RELAY_CRASH_ORDER: &str = "lock relay crash commit again";

/// The holder takes `lock`; relay-1 runs until it stops on it, and is killed there; the holder
/// lets go, and relay-2 takes over.
pub(crate) fn relay_crash<H: Handler>(handler: &H, lock: &str) -> Script<Step, H> {
    Script::new(handler, shown)
        .sql("holder", "lock", lock)
        .sql("holder", "commit", "COMMIT")
        .deliver("relay-1", "relay", Step::Relay(Relay::new(MAX)))
        .kill("crash", "relay-1")
        .deliver("relay-2", "again", Step::Relay(Relay::new(MAX)))
}
// ANCHOR_END: relay_dies_publishing

// ANCHOR: consumer_death
/// The consumer's own crash window: it takes a message and dies as it ships, and the broker
/// delivers the message again. Whatever the first delivery recorded must not stop the second
/// from shipping.
pub async fn consumer_dies_before_shipping<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "a consumer took a message and died as it shipped the order, and the broker delivered \
         the message again (a scripted crash)",
    );
    let (db, world) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let (mut steps, message, last) = one_published_message(&subject, &world, &pool, during).await?;
    let Some(message) = message else {
        return verdict(&world, &steps, during, None).await.map(drop);
    };
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", LOCK_SHIPMENTS)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", Step::Consume(message.clone()))
        .kill("crash", "worker-1")
        .deliver("worker-2", "again", Step::Consume(message));
    // ANCHOR_END: consumer_death
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "lock first crash commit again",
        kit::describe_outcome,
        during,
    )
    .await?;
    let (kept, hidden) = ran.apart_from_failed("worker-1");
    steps.extend(kept.into_iter().map(|(_, outcome)| outcome));
    steps.extend(consume_all(&subject, &world, &pool, last, during).await?);
    verdict(&world, &steps, during, Some(&mut interleaving)).await?;
    // Its session gone, the first consumer ran on, and what it reported is what a broker acts
    // on when only the connection was lost. (A killed relay's report is not judged: no sender
    // waits on it, and the next pass relays whatever it failed to.)
    let hidden = match hidden {
        Some(Done::Consumed(outcome)) => Some(outcome),
        _ => None,
    };
    Violation::unless_failure_hidden(hidden, Fault::Killed, during, interleaving.trace())
}
