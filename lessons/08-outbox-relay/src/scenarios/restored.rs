use super::{orders, prepare, relay_until_empty};
use crate::judge::verdict;
use crate::{Delivery, Done, Handler, Outcome, Step, Subject, Violation, ViolationKind};

// ANCHOR: restored
/// The producer's database is restored from a backup taken before its first announcements (or
/// fails over to a standby that never received them). Its identity sequence goes back with it,
/// so the announcements it writes next draw the ids earlier ones had: `ord-3`, new, gets row 1,
/// and `ord-1`, announced again because the backup predates it, gets row 2. The broker and the
/// warehouse are other systems and remember everything. `ord-3` must ship, and `ord-1` not again.
pub async fn producer_restored_from_a_backup<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "ord-1 and ord-2 were announced, relayed and shipped; then the producer's database was \
         restored from a backup taken before them, and it announced ord-3 (new) and ord-1 \
         (again), whose rows drew outbox ids 1 and 2 once more",
    );
    let (db, world) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    (world.produce(&orders(2)).await).map_err(Violation::setup(during))?;
    let mut steps = relay_until_empty(&subject, &pool).await;
    let (before, read) = (world.messages_after(0).await).map_err(Violation::setup(during))?;
    for message in before {
        steps.push(
            subject
                .handler
                .call(pool.clone(), Step::Consume(message))
                .await,
        );
    }
    let shipped_before = (world.fates().await).map_err(Violation::setup(during))?;

    (world.restore_the_producer().await).map_err(Violation::setup(during))?;
    let again = ["ord-3".to_string(), "ord-1".to_string()];
    (world.produce(&again).await).map_err(Violation::setup(during))?;
    steps.extend(relay_until_empty(&subject, &pool).await);
    let (after, _) = (world.messages_after(read).await).map_err(Violation::setup(during))?;
    let mut taken_for_another = None;
    for message in after {
        let done = subject
            .handler
            .call(pool.clone(), Step::Consume(message.clone()))
            .await;
        // A new event the consumer says it has handled: which event did it take it for?
        let is_new = !shipped_before
            .iter()
            .any(|f| f.event_id == message.event_id);
        if is_new && matches!(done, Ok(Done::Consumed(Outcome::AlreadyApplied))) {
            let earlier = shipped_before
                .iter()
                .find(|f| f.outbox_id == message.outbox_id);
            taken_for_another.get_or_insert(ViolationKind::TakenForAnother {
                event_id: message.event_id.clone(),
                outbox_id: message.outbox_id,
                earlier: earlier.map(|f| f.event_id.clone()),
            });
        }
        steps.push(done);
    }
    // ANCHOR_END: restored
    if let Some(kind) = taken_for_another {
        return Err(Violation {
            kind,
            during,
            trace: None,
        });
    }
    verdict(&world, &steps, during, None).await.map(drop)
}
