//! The lesson's scripted races and faults are data, `specs/*.spec`, and this is how every one of
//! them is played, a student's own included (`cargo workbook break 08`): a fresh database; the
//! spec's setup (the outbox rows it starts from), published first when the spec's sessions
//! consume; the sessions in its order (the kit's engine); then the pipeline drains, and the rule
//! (`judge.rs`) holds every committed outbox row to it: published at least once, shipped exactly
//! once.

use kit::Fault;
use kit::spec::{Hidden, Run};
use serde::Deserialize;

use super::{consume_all, prepare, relay_until_empty, shown};
use crate::judge::verdict;
use crate::world::payload;
use crate::{Delivery, Done, Handler, Message, Relay, Step, Subject, Violation};

kit::lesson_specs!(
    feed: Step => Done, read: read_step, shown: shown,
    check: delivered,
    yours: "the relays and consumers ran in the order your spec gives (a scripted interleaving)",
);

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

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject`. A spec whose sessions consume starts with
/// the rows its setup wrote already published, so that the broker holds the messages it
/// delivers, however the relay records what it sent. After the steps, if the spec relays, the
/// relays run until they find nothing; then the consumer handles every message the broker got
/// that no step was handed, and the rule judges every outbox row. What a relay a fault ended
/// reported is not judged (no sender waits on a relay's report, and the next pass relays
/// whatever it failed to), though what it did to the outbox and the broker is; a consumer that
/// must not wait did not; a consumer a fault ended must have reported the failure.
async fn play<H: Handler>(subject: Subject<H>, run: Run<'_, Delivery>) -> Result<(), Violation> {
    let during = run.during;
    let given = delivered(run.spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let consumes = (given.iter()).any(|step| matches!(step, Step::Consume(_)));
    let relays = (given.iter()).any(|step| matches!(step, Step::Relay(_)));
    let (db, world) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    run.set_up(&db).await?;
    let (mut steps, position) = match consumes {
        true => {
            let steps = relay_until_empty(&subject, &pool).await;
            let (_, last) = (world.messages_after(0).await).map_err(Violation::setup(during))?;
            (steps, last)
        }
        false => (Vec::new(), 0),
    };
    let mut played = run.play_set_up(&db, &subject.handler, &FEED).await?;
    steps.extend(reports(&run, played.delivered.drain(..)));
    if relays {
        steps.extend(relay_until_empty(&subject, &pool).await);
    }
    steps.extend(consume_all(&subject, &world, &pool, position, during).await?);
    verdict(&world, &steps, during, Some(&mut played.interleaving)).await?;
    played.unless_a_neighbour_waited(during)?;
    let (hidden, fault) = match played.hidden {
        Some(Hidden {
            reported: Done::Consumed(outcome),
            fault,
            ..
        }) => (Some(outcome), fault),
        _ => (None, Fault::Killed),
    };
    Violation::unless_failure_hidden(hidden, fault, during, played.interleaving.trace())
}
// ANCHOR_END: play

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
