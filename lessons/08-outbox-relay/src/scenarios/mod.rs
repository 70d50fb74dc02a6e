//! Lesson 08's tests, each a story from chapter 8. Every scenario writes announcements to the
//! producer's outbox, runs relays and the consumer, and judges what became of every committed
//! outbox row: published at least once, shipped exactly once. The scripted ones are specs
//! (`specs/`, played by `lesson.rs`).

mod barrier;
mod refused;
mod restored;
mod sequential;
mod specs;

pub use barrier::barrier;
pub use refused::broker_refuses_a_message;
pub use restored::producer_restored_from_a_backup;
pub use sequential::relayed_and_consumed_once;
pub(crate) use specs::reports;
pub use specs::{FEED, delivered};

use kit::TestDatabase;
use sqlx::PgPool;

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
pub(crate) async fn consume_all<H: Handler>(
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
