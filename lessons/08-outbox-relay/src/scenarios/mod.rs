//! Lesson 08's tests, each a story from chapter 8. Every scenario writes announcements to the
//! producer's outbox, runs relays and the consumer, and judges what became of every committed
//! outbox row: published at least once, shipped exactly once.

mod barrier;
pub(crate) mod failed;
mod forced;
mod neighbours;
mod refused;
mod restored;
mod sequential;

pub use barrier::barrier;
pub use failed::{
    consumer_dies_before_shipping, relay_crashes_between_publish_and_mark,
    relay_dies_while_it_publishes,
};
pub use forced::{consumers_race_for_one_message, rows_commit_out_of_order};
pub use neighbours::other_orders_do_not_wait;
pub use refused::broker_refuses_a_message;
pub use restored::producer_restored_from_a_backup;
pub use sequential::relayed_and_consumed_once;

use kit::TestDatabase;
use sqlx::PgPool;

use crate::judge::verdict;
use crate::world::World;
use crate::{Delivery, Done, Handler, Relay, Step, Subject, Violation};

/// Rows a relay's pass takes.
const MAX: i64 = 10;

/// Passes before a relay that keeps finding rows is called stuck.
const MAX_PASSES: usize = 1_000;

/// A fresh database with the subject's schema, and the test's own session on it.
pub(crate) async fn prepare<H: Handler>(
    subject: &Subject<H>,
    during: Delivery,
) -> Result<(TestDatabase, World), Violation> {
    kit::prepare(&subject.schema, during, World::open).await
}

pub(crate) fn orders(count: usize) -> Vec<String> {
    (1..=count).map(|n| format!("ord-{n}")).collect()
}

/// How a trace shows a step.
fn shown(step: &Step) -> String {
    match step {
        Step::Relay(relay) => format!("relay(max {})", relay.max()),
        Step::Consume(message) => format!("consume(row {})", message.outbox_id),
    }
}

/// Relay passes until one publishes nothing (or fails).
pub(crate) async fn relay_until_empty<H: Handler>(
    subject: &Subject<H>,
    pool: &PgPool,
) -> Vec<Result<Done, sqlx::Error>> {
    let mut steps = Vec::new();
    for _ in 0..MAX_PASSES {
        let result = subject
            .handler
            .call(pool.clone(), Step::Relay(Relay::new(MAX)))
            .await;
        let done = !matches!(result, Ok(Done::Relayed(n)) if n > 0);
        steps.push(result);
        if done {
            break;
        }
    }
    steps
}

/// Hands every message the broker holds after `position` to the consumer, in order.
async fn consume_all<H: Handler>(
    subject: &Subject<H>,
    world: &World,
    pool: &PgPool,
    position: i64,
    during: Delivery,
) -> Result<Vec<Result<Done, sqlx::Error>>, Violation> {
    let (messages, _) = (world.messages_after(position).await).map_err(Violation::setup(during))?;
    let mut steps = Vec::new();
    for message in messages {
        steps.push(
            subject
                .handler
                .call(pool.clone(), Step::Consume(message))
                .await,
        );
    }
    Ok(steps)
}

/// The producer's row for `ord-1`, relayed: the relay's steps, the message the broker then
/// holds (none, if the relay published nothing: the verdict will say so), and the broker's
/// last position. Where the consumer scenarios start.
async fn one_published_message<H: Handler>(
    subject: &Subject<H>,
    world: &World,
    pool: &PgPool,
    during: Delivery,
) -> Result<Published, Violation> {
    (world.produce(&orders(1)).await).map_err(Violation::setup(during))?;
    let steps = relay_until_empty(subject, pool).await;
    let (messages, last) = (world.messages_after(0).await).map_err(Violation::setup(during))?;
    Ok((steps, messages.into_iter().next(), last))
}

/// What [`one_published_message`] returns.
type Published = (Vec<Result<Done, sqlx::Error>>, Option<crate::Message>, i64);

/// The relays run until they find nothing, then the consumer takes every message: what the
/// pipeline does once nothing is in its way.
async fn drain<H: Handler>(
    subject: &Subject<H>,
    world: &World,
    pool: &PgPool,
    during: Delivery,
) -> Result<Vec<Result<Done, sqlx::Error>>, Violation> {
    let mut steps = relay_until_empty(subject, pool).await;
    steps.extend(consume_all(subject, world, pool, 0, during).await?);
    Ok(steps)
}

/// A relay scenario's middle and end: plays `script` in `permutation` order, lets the pipeline
/// drain (relays until they find nothing, then the consumer), and judges every outbox row.
/// What the relay the script kills (`killed`) reports is not judged, whether it returned at the
/// kill or went on, on a new connection, to fail later where the kill had cut its transaction:
/// no sender waits on a relay's report, and the next pass relays whatever it failed to. What
/// it did to the outbox and the broker is judged with everything else.
async fn play_then_drain<H: Handler>(
    subject: &Subject<H>,
    (db, world): (&TestDatabase, &World),
    script: kit::Script<Step, H>,
    (permutation, killed): (&str, Option<&str>),
    during: Delivery,
) -> Result<(), Violation> {
    let (mut interleaving, ran) =
        kit::play(db, script, permutation, kit::describe_outcome, during).await?;
    let mut steps: Vec<_> = (ran.outcomes.into_iter())
        .filter(|(worker, _)| Some(worker.as_str()) != killed)
        .map(|(_, outcome)| outcome)
        .collect();
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    steps.extend(drain(subject, world, &pool, during).await?);
    let trace = verdict(world, &steps, during, Some(&mut interleaving)).await?;
    if let Some(trace) = trace {
        kit::passing_trace(&trace);
    }
    Ok(())
}
