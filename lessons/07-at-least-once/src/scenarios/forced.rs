use kit::Script;

use super::{GROUP, catch_up_then_verdict, order_ids, prepare, shown};
use crate::log::{AMOUNT_CENTS, Verdict};
use crate::{Delivery, Handler, Poll, Subject, Violation};

/// The holder's lock on ord-2's row: the first consumer stops at the first event of its batch.
const LOCK_ORD_2: &str = "BEGIN; SELECT 1 FROM orders WHERE id = 'ord-2' FOR UPDATE";

// ANCHOR: second_consumer
/// Two consumers of one group, as two instances of one service. The first takes a batch (a
/// payment for ord-2, then the payment that confirms ord-1) and stops at its first event, on
/// the holder's lock. Only once it is *seen* waiting does the second poll; the log's next event
/// is a late failure for ord-1, which must not overtake the payment before it. In log order,
/// ord-1 ends confirmed.
pub async fn a_second_consumer_waits_its_turn<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "a consumer took a batch of two verdicts and waited inside it; meanwhile a second \
         consumer of the group polled, and the log's next verdict contradicts the first \
         consumer's second (a scripted interleaving)",
    );
    let orders = order_ids(2);
    let (db, log) = prepare(&subject, during, &orders).await?;
    let appended = [
        Verdict::paid("pay-2", "ord-2", AMOUNT_CENTS),
        Verdict::paid("pay-1", "ord-1", AMOUNT_CENTS),
        Verdict::failed("fail-1", "ord-1"),
    ];
    (log.append(&appended).await).map_err(Violation::setup(during))?;
    let script = Script::new(&subject.handler, shown)
        .sql("holder", "lock", LOCK_ORD_2)
        .sql("holder", "commit", "COMMIT")
        .deliver("worker-1", "first", Poll::new(GROUP, 2))
        .deliver("worker-2", "second", Poll::new(GROUP, 2));
    // ANCHOR_END: second_consumer
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "lock first second commit",
        kit::describe_outcome,
        during,
    )
    .await?;
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
        2,
        during,
        &mut interleaving,
    )
    .await?;
    if let Some(trace) = trace {
        kit::passing_trace(&trace);
    }
    Ok(())
}
