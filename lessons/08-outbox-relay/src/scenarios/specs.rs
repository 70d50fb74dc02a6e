//! The lesson's scripted races and faults are data, `specs/*.spec`: how their steps reach the
//! relay and the consumer, and which of them, a student's own included (`cargo workbook break
//! 08`), lesson 08's rule can judge. `lesson.rs` plays and judges them: a fresh database; the
//! spec's setup (the outbox rows it starts from), published first when the spec's sessions
//! consume; the sessions in its order (the kit's engine); then the pipeline drains, and the
//! rule (`judge.rs`) holds every committed outbox row to it: published at least once, shipped
//! exactly once.

use kit::spec::{Feed, Run, Spec, SpecError};
use serde::Deserialize;

use super::shown;
use crate::world::payload;
use crate::{Delivery, Done, Message, Relay, Step};

/// How the specs reach the pipeline (`deliver {JSON}`, a relay's pass or a consumed message),
/// and how a trace shows each.
pub const FEED: Feed<Step, Result<Done, sqlx::Error>> = Feed::new(read_step, shown);

/// Each step a spec delivers: the rule judges whatever the pipeline can be handed, so long as
/// the lesson can read it.
pub fn delivered(spec: &Spec) -> Result<Vec<Step>, SpecError> {
    spec.events("lesson 08", FEED.read)
}

/// A step, as a spec writes it.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Written {
    /// `{"relay": {"max": N}}`: one relay's pass, over at most N rows.
    Relay { max: i64 },
    /// `{"consume": {…}}`: one message, as the broker carries the announcement of `order_id`.
    Consume {
        outbox_id: i64,
        event_id: String,
        order_id: String,
    },
}

/// A step, as a spec delivers it.
fn read_step(json: &str) -> Result<Step, String> {
    let wanted = "a step is {\"relay\": {\"max\": N}}, N at least 1, or {\"consume\": \
                  {\"outbox_id\": 1, \"event_id\": \"ord-1:order\", \"order_id\": \"ord-1\"}}";
    match serde_json::from_str(json) {
        Ok(Written::Relay { max }) if max >= 1 => Ok(Step::Relay(Relay::new(max))),
        Ok(Written::Consume {
            outbox_id,
            event_id,
            order_id,
        }) => Ok(Step::Consume(Message {
            outbox_id,
            event_id,
            payload: payload(&order_id),
        })),
        Ok(Written::Relay { .. }) => Err(wanted.to_string()),
        Err(e) => Err(format!("it is not a step ({e}); {wanted}")),
    }
}

/// What the steps a permutation delivered reported, for the rule: all but those of a relay a
/// fault ended, which reported to no one, whether it returned at the fault or went on, on a new
/// connection, to fail later where the fault had cut its transaction.
pub(crate) fn reports(
    run: &Run<'_, Delivery>,
    delivered: impl Iterator<Item = (String, Step, Result<Done, sqlx::Error>)>,
) -> Vec<Result<Done, sqlx::Error>> {
    let faulted: Vec<&str> = (run.permutation.steps.iter())
        .filter_map(|step| run.spec.fault_target(step))
        .collect();
    (delivered)
        .filter(|(session, step, _)| {
            !(matches!(step, Step::Relay(_)) && faulted.contains(&session.as_str()))
        })
        .map(|(_, _, done)| done)
        .collect()
}
