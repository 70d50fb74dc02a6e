//! Lesson 07's stories on a Kafka broker: a topic and a group of the test's own, the verdicts
//! produced to the topic, consumers of the group run as a service runs them, and the same rule
//! judged at the end.

use std::sync::Arc;

use kit::Interleaving;
use kit_kafka::TestTopic;

use super::judge::{Consumed1, verdict};
use super::run::{Member, Pause, RunError, run, run_as_zombie};
use super::{Consumed, Consumer};
use crate::log::{AMOUNT_CENTS, Log, Verdict};
use crate::scenarios::order_ids;
use crate::{Delivery, Violation, ViolationKind};

/// The student's consumer, with the schema it was written for.
pub type KafkaSubject = kit::Subject<Arc<dyn Consumer>>;

/// How many records a batch takes at most: the whole story's three fit in one.
const MAX: usize = 4;

/// The holder's lock on ord-2's row: a consumer stops at the second verdict of its batch, after
/// it has handled the first.
const LOCK_ORD_2: &str = "BEGIN; SELECT 1 FROM orders WHERE id = 'ord-2' FOR UPDATE";

// ANCHOR: crash_mid_batch
/// The fault the lesson is about, on a broker: a consumer of the group receives a batch of
/// three verdicts, handles the first, and dies while it waits to handle the second. Its client
/// leaves the group, the group assigns the partition to a new consumer, and that one reads
/// until it has caught up. Every verdict must end up handled exactly once.
pub async fn crash_mid_batch_then_restart(subject: KafkaSubject) -> Result<(), Violation> {
    let during = Delivery::Story(
        "on a Kafka broker, a consumer of the group received a batch of three verdicts, handled \
         the first, and died while it waited to handle the second; the group then assigned the \
         partition to a new consumer, which read until it had caught up (a scripted crash)",
    );
    // ANCHOR_END: crash_mid_batch
    let setup = || Violation::setup(during);
    let appended = [
        Verdict::paid("pay-1", "ord-1", AMOUNT_CENTS),
        Verdict::paid("pay-2", "ord-2", AMOUNT_CENTS),
        Verdict::failed("fail-1", "ord-1"),
    ];
    let stage = Stage::new(&subject, during, 2, &appended).await?;
    let Stage { db, log, .. } = &stage;
    let mut interleaving = Interleaving::new(db).await.map_err(setup())?;
    let holder = (interleaving.session(db, "holder").await).map_err(setup())?;
    (interleaving.step(&holder, LOCK_ORD_2).await).map_err(setup())?;
    let pool = db.pool(1).await.map_err(setup())?;
    let first = stage.member(&subject, pool.clone(), MAX);
    let started = interleaving
        .start(
            "consumer-1",
            &pool,
            "joins the group, receives offsets 0 to 2, consumes them",
            |_| run(first),
        )
        .await;
    let worker = started.map_err(|e| Violation::stuck_or_setup(e, interleaving.trace(), during))?;
    if worker.was_waiting() {
        // Its session is terminated, as the process's death would end it; its client is
        // dropped with its task, and leaves the group.
        // What it returned is an error of its dead connection: nothing to judge.
        let killed = interleaving.kill(worker).await;
        let _died =
            killed.map_err(|e| Violation::stuck_or_setup(e, interleaving.trace(), during))?;
    } else {
        interleaving.note("consumer-1 finished without waiting on ord-2's lock: nothing to kill");
    }
    (interleaving.step(&holder, "COMMIT").await).map_err(setup())?;

    let pool = db.pool(2).await.map_err(setup())?;
    let restarted = run(stage.member(&subject, pool, MAX)).await;
    interleaving.note(format!(
        "consumer-2 joins the group, is assigned the partition, and reads to its end: {}",
        match &restarted {
            Ok(consumed) => format!("{} batch(es) consumed", consumed.len()),
            Err(e) => format!("it stopped: {e}"),
        }
    ));
    let seen = stage.seen(&appended);
    let trace = verdict(log, seen, restarted, during, &mut interleaving).await?;
    kit::passing_trace(&trace);
    Ok(())
}

// ANCHOR: zombie
/// A rebalance with a zombie: a consumer receives a batch and stops before it consumes it (a
/// long pause); the group puts it out and assigns the partition to a second consumer, which
/// consumes the whole partition. Then the first wakes up and consumes the batch it still
/// holds. Nothing may be lost or applied twice, and the offset stored with the effects must
/// not go back to where the zombie's batch ends.
pub async fn zombie_after_a_rebalance(subject: KafkaSubject) -> Result<(), Violation> {
    let during = Delivery::Story(
        "on a Kafka broker, a consumer of the group received a batch of three verdicts and \
         stopped before it consumed them; the group put it out and assigned the partition to a \
         second consumer, which consumed the whole partition; then the first woke up and \
         consumed the batch it still held (a scripted rebalance)",
    );
    // ANCHOR_END: zombie
    let setup = || Violation::setup(during);
    let appended = zombie_story();
    let (stage, mut interleaving, _, (zombie, held, wake)) =
        with_a_zombie(&subject, during, &appended).await?;
    let pool = stage.db.pool(2).await.map_err(setup())?;
    let second = run(stage.member(&subject, pool, ZOMBIE_MAX)).await;
    let before = stage.offsets(during).await?;
    interleaving.note(format!(
        "consumer-2 joins the group, is assigned the partition, and reads to its end: {}; the \
         group's offset is {before}",
        match &second {
            Ok(consumed) => format!("{} batch(es) consumed", consumed.len()),
            Err(e) => format!("it stopped: {e}"),
        }
    ));
    if let Err(e) = second {
        return Err(stage.stopped(during, &interleaving, e.to_string()));
    }
    let _ = wake.send(());
    let woke = match zombie.await {
        Ok(result) => result,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    };
    interleaving.note(format!(
        "consumer-1 wakes up and consumes the batch it held: {}",
        match &woke {
            Ok(consumed) => format!("{consumed:?}"),
            Err(e) => format!("it failed: {e}"),
        }
    ));
    stage.never_back(held, during, &mut interleaving).await?;
    let seen = stage.seen(&appended);
    let trace = verdict(&stage.log, seen, Ok(Vec::new()), during, &mut interleaving).await?;
    kit::passing_trace(&trace);
    Ok(())
}

/// The holder's lock on ord-3's row, the fourth verdict's order: the partition's new owner
/// stops there, in the middle of its batch.
const LOCK_ORD_3: &str = "BEGIN; SELECT 1 FROM orders WHERE id = 'ord-3' FOR UPDATE";

// ANCHOR: zombie_mid_batch
/// The zombie wakes up while the partition's new owner is in the middle of its batch (which
/// takes the whole partition): the zombie's transaction meets the owner's, and must not apply
/// its batch or move the stored offset back once the owner has committed.
pub async fn zombie_wakes_mid_batch(subject: KafkaSubject) -> Result<(), Violation> {
    let during = Delivery::Story(
        "on a Kafka broker, a consumer of the group received a batch of three verdicts and \
         stopped before it consumed them; the group put it out and assigned the partition to a \
         second consumer, which took all five verdicts in one batch; the first woke up while \
         the second was in the middle of its batch (a scripted rebalance)",
    );
    // ANCHOR_END: zombie_mid_batch
    let setup = || Violation::setup(during);
    let appended = zombie_story();
    let (stage, mut interleaving, zombie_pool, (zombie, held, wake)) =
        with_a_zombie(&subject, during, &appended).await?;
    let stuck = |interleaving: &Interleaving| {
        let trace = interleaving.trace().clone();
        move |e| Violation::stuck_or_setup(e, &trace, during)
    };
    let holder = (interleaving.session(&stage.db, "holder").await).map_err(setup())?;
    (interleaving.step(&holder, LOCK_ORD_3).await).map_err(setup())?;
    let owner_pool = stage.db.pool(1).await.map_err(setup())?;
    let second = stage.member(&subject, owner_pool.clone(), appended.len());
    let owner = interleaving
        .start(
            "consumer-2",
            &owner_pool,
            "joins the group, is assigned the partition, consumes offsets 0 to 4",
            move |_| run(second),
        )
        .await;
    let owner = owner.map_err(stuck(&interleaving))?;
    let woken = interleaving
        .start(
            "consumer-1",
            &zombie_pool,
            format!("wakes up, consumes the batch it held ({held})"),
            move |_| async move {
                let _ = wake.send(());
                match zombie.await {
                    Ok(result) => result,
                    Err(e) => std::panic::resume_unwind(e.into_panic()),
                }
            },
        )
        .await;
    let woken = woken.map_err(stuck(&interleaving))?;
    (interleaving.step(&holder, "COMMIT").await).map_err(setup())?;
    let owned = (interleaving.finish(owner, |result| match result {
        Ok(consumed) => format!("{} batch(es) consumed", consumed.len()),
        Err(e) => format!("it stopped: {e}"),
    }))
    .await
    .map_err(stuck(&interleaving))?;
    // What the zombie returned is in the trace; the offsets and the orders judge it.
    let _woke = (interleaving.finish(woken, |result| match result {
        Ok(consumed) => format!("{consumed:?}"),
        Err(e) => format!("it failed: {e}"),
    }))
    .await
    .map_err(stuck(&interleaving))?;
    if let Err(e) = owned {
        return Err(stage.stopped(during, &interleaving, e.to_string()));
    }
    stage.never_back(held, during, &mut interleaving).await?;
    let seen = stage.seen(&appended);
    let trace = verdict(&stage.log, seen, Ok(Vec::new()), during, &mut interleaving).await?;
    kit::passing_trace(&trace);
    Ok(())
}

/// The zombie stories' start: the stage, with a consumer that received the first three
/// verdicts and was put out of the group (its pool, of one connection, and the zombie).
async fn with_a_zombie(
    subject: &KafkaSubject,
    during: Delivery,
    appended: &[Verdict],
) -> Result<(Stage, Interleaving, sqlx::PgPool, Zombie), Violation> {
    let setup = || Violation::setup(during);
    let stage = Stage::new(subject, during, 3, appended).await?;
    let mut interleaving = Interleaving::new(&stage.db).await.map_err(setup())?;
    let pool = stage.db.pool(1).await.map_err(setup())?;
    let zombie = (stage.zombie(subject, pool.clone(), during, &interleaving)).await?;
    interleaving.note(format!(
        "consumer-1 joins the group and receives {}; it stops before it consumes them, and the \
         group puts it out",
        zombie.1
    ));
    Ok((stage, interleaving, pool, zombie))
}

/// Five verdicts for three orders: the zombie's batch is the first three.
fn zombie_story() -> [Verdict; 5] {
    [
        Verdict::paid("pay-1", "ord-1", AMOUNT_CENTS),
        Verdict::paid("pay-2", "ord-2", AMOUNT_CENTS),
        Verdict::failed("fail-1", "ord-1"),
        Verdict::paid("pay-3", "ord-3", AMOUNT_CENTS),
        Verdict::failed("fail-2", "ord-2"),
    ]
}

/// A consumer that will be a zombie, spawned: it joins, receives its first batch, is put out
/// of the group, and waits. Returns its task, the batch it holds (in words), and its alarm.
type Zombie = (
    tokio::task::JoinHandle<Result<Consumed, RunError>>,
    String,
    tokio::sync::oneshot::Sender<()>,
);

/// The zombie's batch: three of the partition's five verdicts.
const ZOMBIE_MAX: usize = 3;

/// A fresh database with the subject's schema and `orders` pending orders, a topic of one
/// partition with `appended` produced to it in order, and a group of the test's own, registered
/// in `partition_offsets` at offset 0.
pub(super) struct Stage {
    pub(super) db: kit::TestDatabase,
    pub(super) log: Log,
    pub(super) topic: TestTopic,
    pub(super) group: String,
    pub(super) orders: Vec<String>,
    /// The offset after the partition's last record.
    pub(super) ends: Vec<i64>,
}

/// The group's offset for the partition, both places it can be kept.
struct Offsets {
    on_the_broker: Option<i64>,
    stored: Option<i64>,
}

impl std::fmt::Display for Offsets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = |offset: Option<i64>| offset.map_or("none".to_string(), |o| o.to_string());
        write!(
            f,
            "{} on the broker, {} stored with the effects",
            shown(self.on_the_broker),
            shown(self.stored)
        )
    }
}

impl Stage {
    pub(super) async fn new(
        subject: &KafkaSubject,
        during: Delivery,
        orders: usize,
        appended: &[Verdict],
    ) -> Result<Stage, Violation> {
        let setup = || Violation::setup(during);
        let orders = order_ids(orders);
        let (db, log) = kit::prepare(&subject.schema, during, Log::open).await?;
        (log.set_up(&orders, &[]).await).map_err(setup())?;
        let topic = (TestTopic::create("verdicts", 1).await).map_err(setup())?;
        let group = kit_kafka::unique_name("saga");
        (log.register_partitions(&group, &topic.name, 1).await).map_err(setup())?;
        (log.watch_offsets().await).map_err(setup())?;
        let producer = topic.producer().map_err(setup())?;
        for verdict in appended {
            (topic
                .produce(&producer, 0, &verdict.order_id, &verdict.json())
                .await)
                .map_err(setup())?;
        }
        Ok(Stage {
            db,
            log,
            topic,
            group,
            orders,
            ends: vec![appended.len() as i64],
        })
    }

    /// A consumer of the stage's group on its topic: the subject's, on `pool`.
    pub(super) fn member(&self, subject: &KafkaSubject, pool: sqlx::PgPool, max: usize) -> Member {
        Member {
            consumer: subject.handler.clone(),
            pool,
            topic: self.topic.clone(),
            group: self.group.clone(),
            max,
            ends: self.ends.clone(),
            batches: None,
        }
    }

    pub(super) fn seen<'a>(&'a self, appended: &'a [Verdict]) -> Consumed1<'a> {
        Consumed1 {
            topic: &self.topic,
            group: &self.group,
            orders: &self.orders,
            appended,
        }
    }

    async fn offsets(&self, during: Delivery) -> Result<Offsets, Violation> {
        let setup = || Violation::setup(during);
        Ok(Offsets {
            on_the_broker: (self.topic.committed(&self.group, 0).await).map_err(setup())?,
            stored: (self
                .log
                .stored_offset(&self.group, &self.topic.name, 0)
                .await)
                .map_err(setup())?,
        })
    }

    async fn zombie(
        &self,
        subject: &KafkaSubject,
        pool: sqlx::PgPool,
        during: Delivery,
        interleaving: &Interleaving,
    ) -> Result<Zombie, Violation> {
        let (holding, held) = tokio::sync::oneshot::channel();
        let (wake, resume) = tokio::sync::oneshot::channel();
        let member = self.member(subject, pool, ZOMBIE_MAX);
        let zombie = tokio::spawn(run_as_zombie(member, Pause { holding, resume }));
        match held.await {
            Ok(held) => Ok((zombie, held, wake)),
            // It ended before it held a batch: what it returned says why.
            Err(_) => {
                let why = match zombie.await {
                    Ok(Err(e)) => e.to_string(),
                    _ => "it stopped without a word".to_string(),
                };
                Err(self.stopped(during, interleaving, format!("consumer-1: {why}")))
            }
        }
    }

    /// The offset stored with the effects must never have gone back.
    async fn never_back(
        &self,
        held: String,
        during: Delivery,
        interleaving: &mut Interleaving,
    ) -> Result<(), Violation> {
        let moved_back = (self.log.first_move_back().await).map_err(Violation::setup(during))?;
        if let Some((from, to)) = moved_back {
            let now = self.offsets(during).await?;
            interleaving.note(format!("the group's offset is {now}"));
            return Err(Violation {
                kind: ViolationKind::OffsetWentBack {
                    from,
                    to,
                    zombie: held,
                },
                during,
                trace: Some(interleaving.trace().clone()),
            });
        }
        Ok(())
    }

    fn stopped(&self, during: Delivery, interleaving: &Interleaving, why: String) -> Violation {
        Violation {
            kind: ViolationKind::ConsumerStopped { why },
            during,
            trace: Some(interleaving.trace().clone()),
        }
    }
}
