use kit::Script;

use super::{MAX, one_published_message, play_then_drain, prepare, shown};
use crate::judge::verdict;
use crate::world::insert_sql;
use crate::{Delivery, Handler, Relay, Step, Subject, Violation};

// ANCHOR: out_of_order
/// Two transactions write to the outbox: `writer-a` first (its row draws id 1) and `writer-b`
/// second (id 2), but `writer-b` commits first. A relay passes over the outbox between the two
/// commits, and another after both. Row 1 must reach the broker.
pub async fn rows_commit_out_of_order<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "two transactions wrote to the outbox, and the one that drew the higher id committed \
         first; a relay passed between the two commits, and another after both (a scripted \
         interleaving)",
    );
    let (db, world) = prepare(&subject, during).await?;
    let script = Script::new(&subject.handler, shown)
        .sql(
            "writer-a",
            "a-writes",
            &format!("BEGIN; {}", insert_sql("ord-1")),
        )
        .sql("writer-b", "b-commits", &insert_sql("ord-2"))
        .sql("writer-a", "a-commits", "COMMIT")
        .deliver("relay-1", "relay", Step::Relay(Relay::new(MAX)))
        .deliver("relay-2", "again", Step::Relay(Relay::new(MAX)));
    // ANCHOR_END: out_of_order
    play_then_drain(
        &subject,
        (&db, &world),
        script,
        ("a-writes b-commits relay a-commits again", None),
        during,
    )
    .await
}

/// The holder's lock on the warehouse's table: a consumer stops as it ships.
const LOCK_SHIPMENTS: &str = "BEGIN; LOCK TABLE shipments IN SHARE MODE";

// ANCHOR: consumers_race
/// One published message reaches two consumers of the warehouse (the broker redelivered it to
/// another instance), the second while the first is inside its transaction, stopped as it
/// ships. The order must ship once.
pub async fn consumers_race_for_one_message<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "one published message reached two consumers, the second while the first was still \
         inside its transaction (a scripted interleaving)",
    );
    let (db, world) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let (mut steps, message, _) = one_published_message(&subject, &world, &pool, during).await?;
    let Some(message) = message else {
        return verdict(&world, &steps, during, None).await.map(drop);
    };
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", LOCK_SHIPMENTS)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", Step::Consume(message.clone()))
        .deliver("worker-2", "second", Step::Consume(message));
    // ANCHOR_END: consumers_race
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "lock first second commit",
        kit::describe_outcome,
        during,
    )
    .await?;
    steps.extend(ran.outcomes.into_iter().map(|(_, outcome)| outcome));
    let trace = verdict(&world, &steps, during, Some(&mut interleaving)).await?;
    if let Some(trace) = trace {
        kit::passing_trace(&trace);
    }
    Ok(())
}
