//! What each saga lesson plays, in the order `cargo test` runs it: the four share this crate's
//! specs and scenarios, and each picks its own. A pick marked `repeat()` is a race or fault that
//! lesson's shipped exercise loses (`cargo workbook repeat 03` counts it); the same permutation
//! may be one lesson's race and another's test that any guard passes. Chapters 2 to 5 of the
//! book tell each story.

use kit::harness::{Pick, Rust};

const DUPLICATE: &str = "duplicate.spec";
const CONTRADICTING: &str = "contradicting.spec";

// Passes against every exercise: the pre-check sees a redelivery that comes after, and nothing
// dies between the commits.
const REDELIVERED: Pick = rust("a_redelivery_after_the_first_changes_nothing");
// Only a duplicate is "already applied": a real failure stays an error, and rolls the record
// back with everything else.
const UNKNOWN_ORDER: Pick = rust("an_event_for_an_unknown_order_is_an_error");
// The duplicate arrives while the first delivery is inside its transaction: a duplicate may
// give up on the event only once the first delivery has committed it.
const RACING_DUPLICATE: Pick = Pick::spec(
    DUPLICATE,
    "a_duplicate_racing_an_uncommitted_delivery_changes_nothing",
);
// The first delivery's transaction dies while the duplicate waits on it: the duplicate applies
// the event.
const DIES_WHILE_DUPLICATE_WAITS: Pick = Pick::spec(
    DUPLICATE,
    "a_duplicate_waiting_on_a_delivery_that_dies_applies_the_event",
);
// The worker dies between the record and the order's change, and the event is delivered again.
const DIES_BEFORE_THE_CHANGE: Pick = Pick::spec(
    DUPLICATE,
    "a_delivery_that_dies_before_the_change_is_applied_by_the_redelivery",
);
// A delivery cancelled while it waits keeps nothing, and leaves nothing in its session.
const CANCELLED: Pick = Pick::spec(
    DUPLICATE,
    "a_redelivery_after_a_cancelled_delivery_applies_the_event",
);
// Two different instalments racing for one order both count: neither is a duplicate.
const INSTALMENTS: Pick = rust("instalments_racing_for_one_order_both_count");
// A payment for another order goes through while one order's row is locked.
const NEIGHBOUR: Pick = Pick::spec(
    "neighbours.spec",
    "a_payment_for_another_order_does_not_wait",
);
// A contradicting event arrives while the first is inside its transaction; the same with the
// failure first; and the same while another session reads the order under a share lock.
const CONTRADICTING_RACE: Pick = Pick::spec(
    CONTRADICTING,
    "contradicting_events_racing_for_one_order_resolve_it_once",
);
const FAILURE_FIRST: Pick = Pick::spec(
    CONTRADICTING,
    "contradicting_events_the_failure_first_resolve_it_once",
);
const PAST_A_READER: Pick = Pick::spec(
    CONTRADICTING,
    "contradicting_events_racing_past_a_reader_resolve_it_once",
);
/// The barrier tests' cases: the workers released together each round.
const WORKERS: &[(&str, &str)] = &[
    ("two_workers", "2"),
    ("eight_workers", "8"),
    ("thirty_two_workers", "32"),
];

/// A scenario in Rust (`Lesson::play_rust` plays it by this name), run once.
const fn rust(name: &'static str) -> Pick {
    Pick::Rust(Rust::once(name))
}

/// The essay's barrier, `name` saying which events the workers carry.
const fn barrier(name: &'static str) -> Pick {
    Pick::Rust(Rust {
        multi_thread: true,
        cases: WORKERS,
        ..Rust::once(name)
    })
}

/// Lesson 02, guard 1: the insert, not a pre-check, decides.
pub const LESSON_02: &[Pick] = &[
    REDELIVERED,
    UNKNOWN_ORDER,
    RACING_DUPLICATE.repeat(),
    DIES_WHILE_DUPLICATE_WAITS,
    CANCELLED,
    INSTALMENTS,
    NEIGHBOUR,
    // Every worker has the same event.
    barrier("workers_released_together_apply_each_event_once").repeat(),
];

/// Lesson 03: the record and the effect in one transaction. Its faults are what the exercise
/// loses; concurrency alone never splits its two commits, so its barrier passes.
pub const LESSON_03: &[Pick] = &[
    REDELIVERED,
    DIES_BEFORE_THE_CHANGE
        .named("a_delivery_that_dies_halfway_is_applied_by_the_redelivery")
        .repeat(),
    DIES_WHILE_DUPLICATE_WAITS.repeat(),
    RACING_DUPLICATE.repeat(),
    UNKNOWN_ORDER,
    CANCELLED.repeat(),
    INSTALMENTS,
    NEIGHBOUR,
    barrier("workers_released_together_apply_each_event_once"),
];

/// Lesson 04, guard 2: the order's row locked, and its state checked, before it changes.
pub const LESSON_04: &[Pick] = &[
    // Only the terminal-state guard catches a new event id for a confirmed order.
    rust("a_late_failure_cannot_flip_a_confirmed_order"),
    // Only the dedupe guard catches a redelivery while the order is still pending.
    rust("a_redelivered_instalment_is_counted_once"),
    CONTRADICTING_RACE.repeat(),
    FAILURE_FIRST.repeat(),
    PAST_A_READER.repeat(),
    CANCELLED,
    INSTALMENTS,
    NEIGHBOUR,
    // No duplicate ids at all: every worker has an event of its own.
    barrier("workers_released_together_resolve_the_order_once").repeat(),
];

/// Lesson 05, guard 3: the announcement in the outbox, in the same transaction.
pub const LESSON_05: &[Pick] = &[
    REDELIVERED,
    // The worker dies between the order's change and its outbox row.
    Pick::spec(
        DUPLICATE,
        "a_delivery_that_dies_before_announcing_is_announced_after_all",
    )
    .repeat(),
    // Lesson 03's fault still holds: dying before the change loses nothing.
    DIES_BEFORE_THE_CHANGE,
    PAST_A_READER,
    CANCELLED,
    INSTALMENTS,
    NEIGHBOUR,
    // Duplicates and contradictions at once.
    barrier("workers_released_together_announce_the_order_once"),
];
