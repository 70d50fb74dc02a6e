//! The rule of lesson 07, judged on a Kafka broker: once the consumer that took over has read
//! the partition to its end, every verdict was handled exactly once, in order.

use kit::{Common, Interleaving, Trace};
use kit_kafka::TestTopic;

use super::run::RunError;
use super::{ConsumeError, Consumed};
use crate::log::{Log, Verdict, model};
use crate::violation::Mismatch;
use crate::{Delivery, Violation, ViolationKind};

/// What the scenario knows of its one-partition topic.
pub(crate) struct Consumed1<'a> {
    pub(crate) topic: &'a TestTopic,
    pub(crate) group: &'a str,
    pub(crate) orders: &'a [String],
    pub(crate) appended: &'a [Verdict],
}

/// Reads what the consumers left, notes it in the trace, and judges it; returns the trace, for
/// a scenario that passed to offer.
pub(crate) async fn verdict(
    log: &Log,
    seen: Consumed1<'_>,
    restarted: Result<Vec<Consumed>, RunError>,
    during: Delivery,
    interleaving: &mut Interleaving,
) -> Result<Trace, Violation> {
    let setup = Violation::setup(during);
    let (orders, recorded) = log.observe_effects().await.map_err(setup)?;
    let on_the_broker =
        (seen.topic.committed(seen.group, 0).await).map_err(Violation::setup(during))?;
    let stored = (log.stored_offset(seen.group, &seen.topic.name, 0).await)
        .map_err(Violation::setup(during))?;
    let handled = (seen.appended.iter())
        .filter(|v| recorded.contains(&v.id))
        .count();
    let shown = |offset: Option<i64>| offset.map_or("none".to_string(), |o| o.to_string());
    interleaving.note(format!(
        "the group's offset for the partition: {} on the broker, {} stored with the effects; \
         {handled} of {} verdicts were handled",
        shown(on_the_broker),
        shown(stored),
        seen.appended.len()
    ));
    let trace = interleaving.trace().clone();
    let caught = |kind| Violation {
        kind,
        during,
        trace: Some(trace.clone()),
    };
    match restarted {
        Ok(_) => {}
        Err(RunError::Consume(ConsumeError::Database(error)))
        | Err(RunError::StartingOffset(error)) => {
            return Err(caught(ViolationKind::Common(Common::failed(&error))));
        }
        Err(other) => {
            return Err(caught(ViolationKind::ConsumerStopped {
                why: other.to_string(),
            }));
        }
    }
    let lost: Vec<&Verdict> = (seen.appended.iter())
        .filter(|verdict| !recorded.contains(&verdict.id))
        .collect();
    if let Some(first) = lost.first() {
        return Err(caught(ViolationKind::LostOnTheBroker {
            lost: lost.len(),
            example: first.id.clone(),
            on_the_broker,
            stored,
        }));
    }
    for (order_id, expected) in model(seen.orders, seen.appended) {
        let Some(found) = orders.get(&order_id) else {
            continue;
        };
        if *found != expected {
            return Err(caught(ViolationKind::OrderDiffers(Box::new(Mismatch {
                expected: expected.to_string(),
                found: found.to_string(),
                order_id,
            }))));
        }
    }
    Ok(trace)
}
