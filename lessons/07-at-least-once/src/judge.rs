//! The one rule every scenario checks: once the consumer has caught up, every event of the log
//! was handled exactly once, the orders are what the model says, the offset points just after
//! the log's last event, and the other group's offset has not moved.

use kit::{Common, Trace};

use crate::log::{Log, Observed, Verdict, model};
use crate::scenarios::{GROUP, NEIGHBOUR};
use crate::violation::Mismatch;
use crate::{Delivery, Polled, Violation, ViolationKind};

/// `one_at_a_time`: no two polls ran at once, so none had a reason to take an event another
/// had taken (consumers of one group that overlap may, and let the dedupe table absorb it).
pub(crate) fn judge(
    observed: &Observed,
    orders: &[String],
    log: &[Verdict],
    polls: &[Result<Polled, sqlx::Error>],
    one_at_a_time: bool,
) -> Result<(), ViolationKind> {
    if let Some(error) = polls.iter().find_map(|poll| poll.as_ref().err()) {
        return Err(ViolationKind::Common(Common::failed(error)));
    }
    let lost: Vec<&Verdict> = (log.iter())
        .filter(|verdict| !observed.recorded.contains(&verdict.id))
        .collect();
    if let Some(first) = lost.first() {
        let mut ids: Vec<&str> = lost.iter().map(|v| v.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        return Err(ViolationKind::EventsLost {
            lost: ids.len(),
            example: first.id.clone(),
            next_position: observed.next_position,
        });
    }
    for (order_id, expected) in model(orders, log) {
        let Some(found) = observed.orders.get(&order_id) else {
            continue;
        };
        if *found == expected {
            continue;
        }
        let mismatch = Box::new(Mismatch {
            expected: expected.to_string(),
            found: found.to_string(),
            order_id,
        });
        return Err(
            if in_another_order(&mismatch.order_id, log, &mismatch.found) {
                ViolationKind::AppliedOutOfOrder(mismatch)
            } else {
                ViolationKind::OrderDiffers(mismatch)
            },
        );
    }
    // Every poll succeeded (a failed one is reported above) and, one at a time, none had a
    // reason to leave an event for the next to take again.
    let taken: usize = (polls.iter().flatten()).map(|poll| poll.handled).sum();
    if one_at_a_time && taken > log.len() {
        return Err(ViolationKind::TakenTwice {
            taken,
            positions: log.len(),
        });
    }
    if observed.next_position > observed.last_position + 1 {
        return Err(ViolationKind::OffsetPastTheEnd {
            next_position: observed.next_position,
            last: observed.last_position,
        });
    }
    Ok(())
}

/// Whether `found` is what the order's verdicts make of it, each applied once, in an order
/// other than the log's: two consumers applied parts of the log at the same time.
fn in_another_order(order_id: &str, log: &[Verdict], found: &str) -> bool {
    let mut verdicts: Vec<Verdict> = Vec::new();
    for verdict in log.iter().filter(|v| v.order_id == order_id) {
        if !verdicts.iter().any(|known| known.id == verdict.id) {
            verdicts.push(verdict.clone());
        }
    }
    let orders = [order_id.to_string()];
    permutations(&verdicts)
        .iter()
        .any(|order| model(&orders, order)[order_id].to_string() == found)
}

/// Every order of `items` (an order has at most a few verdicts).
fn permutations(items: &[Verdict]) -> Vec<Vec<Verdict>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut all = Vec::new();
    for (i, first) in items.iter().enumerate() {
        let mut rest = items.to_vec();
        rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first.clone());
            all.push(tail);
        }
    }
    all
}

/// Reads what the consumer left, notes it in the trace when there is one, and judges it; returns
/// the trace, for a scripted scenario that passed to offer.
pub(crate) async fn verdict(
    log: &Log,
    orders: &[String],
    appended: &[Verdict],
    polls: &[Result<Polled, sqlx::Error>],
    one_at_a_time: bool,
    during: Delivery,
    interleaving: Option<&mut kit::Interleaving>,
) -> Result<Option<Trace>, Violation> {
    let observed = (log.observe(GROUP).await).map_err(Violation::setup(during))?;
    let trace: Option<Trace> = interleaving.map(|interleaving| {
        let handled = appended
            .iter()
            .filter(|v| observed.recorded.contains(&v.id))
            .count();
        interleaving.note(format!(
            "the group's offset is {}, the log ends at {}; {handled} of {} appended events were \
             handled",
            observed.next_position,
            observed.last_position,
            appended.len()
        ));
        interleaving.trace().clone()
    });
    let violation = |kind| Violation {
        kind,
        during,
        trace: trace.clone(),
    };
    judge(&observed, orders, appended, polls, one_at_a_time).map_err(violation)?;
    let neighbour = (log.observe_offset(NEIGHBOUR).await).map_err(Violation::setup(during))?;
    if neighbour != 1 {
        return Err(violation(ViolationKind::MovedAnotherGroup {
            group: NEIGHBOUR,
            from: 1,
            to: neighbour,
        }));
    }
    if observed.next_position <= observed.last_position {
        return Err(violation(ViolationKind::NotCaughtUp {
            next_position: observed.next_position,
            last: observed.last_position,
            polls: polls.len(),
        }));
    }
    Ok(trace)
}
