use kit::{Common, Script};

use super::{GROUP, MAX, NEIGHBOUR, catch_up_then_verdict, order_ids, prepare, shown};
use crate::log::{AMOUNT_CENTS, Verdict};
use crate::{Delivery, Handler, Poll, Subject, Violation, ViolationKind};

/// The neighbour group's consumer, half-way through a batch: it holds its own offset row.
const LOCK_NEIGHBOURS_OFFSET: &str =
    "BEGIN; SELECT 1 FROM consumer_offsets WHERE group_id = 'ledger' FOR UPDATE";

// ANCHOR: another_group
/// Another service reads the same log as its own group, and one of its consumers is inside a
/// batch, holding that group's offset row. A poll of this group shares nothing with it (no
/// offset, no effects) and must not wait for it: a poll that locks the whole offsets table, or
/// every group's row, makes each service wait for the slowest.
pub async fn another_group_is_not_held_up<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "a consumer of another group of the log, ledger, was inside a batch, holding its own \
         group's offset row, while a consumer of this group polled (a scripted interleaving)",
    );
    let orders = order_ids(2);
    let (db, log) = prepare(&subject, during, &orders).await?;
    let appended = [
        Verdict::paid("pay-1", "ord-1", AMOUNT_CENTS),
        Verdict::paid("pay-2", "ord-2", AMOUNT_CENTS),
    ];
    (log.append(&appended).await).map_err(Violation::setup(during))?;
    let script = Script::new(&subject.handler, shown)
        .sql("ledger", "lock", LOCK_NEIGHBOURS_OFFSET)
        .sql("ledger", "commit", "COMMIT")
        .deliver("worker-1", "poll", Poll::new(GROUP, MAX));
    // ANCHOR_END: another_group
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "lock poll commit",
        kit::describe_outcome,
        during,
    )
    .await?;
    let waited = ran.waited("worker-1");
    let polls = ran
        .outcomes
        .into_iter()
        .map(|(_, outcome)| outcome)
        .collect();
    let trace = catch_up_then_verdict(
        &subject,
        (&db, &log),
        (&orders, &appended),
        polls,
        (MAX, false),
        during,
        &mut interleaving,
    )
    .await?;
    if waited {
        return Err(Violation {
            kind: ViolationKind::Common(Common::WaitedOnANeighbour {
                waiting: format!("group {GROUP:?}"),
                held: format!("group {NEIGHBOUR:?}'s offset row, half-way through a batch"),
            }),
            during,
            trace,
        });
    }
    if let Some(trace) = trace {
        kit::passing_trace(&trace);
    }
    Ok(())
}
