//! Lesson 08's stories on a Kafka broker: a topic and a group of the test's own, relays that
//! publish to the topic, each pass with a producer of its own, and consumers of the group. The
//! same rule judges them: every announcement the producer committed reached the topic at least
//! once, and the warehouse shipped it exactly once.

use std::collections::HashMap;

use kit::spec::Run;
use kit::{Interleaving, TestDatabase};
use kit_kafka::TestTopic;

use super::group::{Ends, Steps, member, message_of};
use super::on_topic;
use crate::judge::verdict_on;
use crate::scenarios::{FEED, orders, prepare, relay_until_empty, reports};
use crate::world::{RowFate, World};
use crate::{Delivery, Handler, Subject, Violation};

// ANCHOR: relay_restarts
/// A relay publishes two rows to the topic with an idempotent producer, then dies before its
/// record of having sent them commits. The next relay, a new process with a new producer,
/// publishes them again. A consumer of the group reads the topic to its end. Each order must
/// ship once.
pub async fn relay_restarts_and_publishes_again<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "on a Kafka broker, a relay published two outbox rows to the topic with an idempotent \
         producer and died before it had recorded sending them; another relay, a new process \
         with a producer of its own, took over, and a consumer of the group read the topic to \
         its end (a scripted crash)",
    );
    // ANCHOR_END: relay_restarts
    let setup = || Violation::setup(during);
    // The crash of the table broker's relay-crash spec, played against relays that publish to
    // the topic: its setup writes the two rows.
    let (db, world, topic) = stage(&subject, during, 0).await?;
    let relays = Subject {
        handler: on_topic(subject.handler.clone(), topic.clone()),
        schema: subject.schema.clone(),
    };
    let (spec, permutation, _) = kit::contract::shipped::<crate::Lesson>().test(
        "relay-crash.spec",
        "rows_published_again_after_a_relay_crash_ship_once",
    );
    let run = Run {
        spec,
        permutation,
        during,
    };
    let mut played = run.play(&db, &relays.handler, &FEED).await?;
    // The killed relay's report is not judged, as on the table broker.
    let mut steps: Steps = reports(&run, played.delivered.drain(..));
    let mut interleaving = played.interleaving;
    let pool = db.pool(1).await.map_err(setup())?;
    steps.extend(relay_until_empty(&relays, &pool).await);
    let group = kit_kafka::unique_name("warehouse");
    let consumed = member(&subject.handler, &pool, (&topic, &group), Ends::AtTheEnd).await;
    steps.extend(consumed.map_err(setup())?);
    interleaving.note("a consumer of the group reads the topic to its end, committing as it goes");
    judge(&world, &topic, &steps, during, &mut interleaving).await
}

// ANCHOR: consumer_dies
/// The consumer's crash window on a broker: a member of the group receives a message, its
/// step ships the order and returns, and the member dies before it commits its offset. The
/// group gives the partition to another member, which receives the message again. The order
/// must ship once.
pub async fn consumer_dies_before_its_commit<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "on a Kafka broker, a consumer of the group received a message, handled it, and died \
         before it committed its offset to the broker; the group gave the partition to another \
         consumer, which received the message again (a scripted crash)",
    );
    // ANCHOR_END: consumer_dies
    let setup = || Violation::setup(during);
    let (db, world, topic) = stage(&subject, during, 1).await?;
    let mut interleaving = Interleaving::new(&db).await.map_err(setup())?;
    let relays = Subject {
        handler: on_topic(subject.handler.clone(), topic.clone()),
        schema: subject.schema.clone(),
    };
    let pool = db.pool(1).await.map_err(setup())?;
    let mut steps = relay_until_empty(&relays, &pool).await;
    interleaving.note("a relay publishes ord-1's announcement to the topic");
    let group = kit_kafka::unique_name("warehouse");
    let ends = [Ends::AfterTheFirstStep, Ends::AtTheEnd];
    for (n, ends) in ends.into_iter().enumerate() {
        let consumed = member(&subject.handler, &pool, (&topic, &group), ends).await;
        let consumed = consumed.map_err(setup())?;
        let said: Vec<String> = consumed.iter().map(kit::describe_outcome).collect();
        interleaving.note(match ends {
            Ends::AfterTheFirstStep => format!(
                "consumer-{} joins the group and receives offset 0: consume -> {}; it dies \
                 before it commits the offset",
                n + 1,
                said.join(", ")
            ),
            Ends::AtTheEnd => format!(
                "consumer-{} joins the group, is assigned the partition, and reads it to its \
                 end: consume -> {}",
                n + 1,
                said.join(", ")
            ),
        });
        steps.extend(consumed);
    }
    judge(&world, &topic, &steps, during, &mut interleaving).await
}

/// A fresh database with the subject's schema and the announcements of `orders` orders
/// committed to the outbox, and a topic of one partition of the test's own.
async fn stage<H: Handler>(
    subject: &Subject<H>,
    during: Delivery,
    count: usize,
) -> Result<(TestDatabase, World, TestTopic), Violation> {
    let (db, world) = prepare(subject, during).await?;
    (world.produce(&orders(count)).await).map_err(Violation::setup(during))?;
    let topic = (TestTopic::create("announcements", 1).await).map_err(Violation::setup(during))?;
    Ok((db, world, topic))
}

/// What became of every outbox row, its copies counted in the topic, noted and judged.
async fn judge(
    world: &World,
    topic: &TestTopic,
    steps: &Steps,
    during: Delivery,
    interleaving: &mut Interleaving,
) -> Result<(), Violation> {
    let setup = || Violation::setup(during);
    let records = topic.read_all(0).await.map_err(setup())?;
    let mut copies: HashMap<String, i64> = HashMap::new();
    for record in &records {
        let message = message_of(record).map_err(setup())?;
        *copies.entry(message.event_id).or_default() += 1;
    }
    let mut fates: Vec<RowFate> = world.fates().await.map_err(setup())?;
    for fate in &mut fates {
        fate.published = copies.get(&fate.event_id).copied().unwrap_or(0);
    }
    interleaving.note(format!(
        "the topic holds {} record(s) for {} announcement(s), every one produced with \
         enable.idempotence=true",
        records.len(),
        fates.len()
    ));
    let trace = verdict_on(&fates, steps, during, Some(interleaving))?;
    if let Some(trace) = trace {
        kit::passing_trace(&trace);
    }
    Ok(())
}
