//! Lessons 02 to 05 as the kit knows them: one contract, four lessons. `Lesson<2>` to
//! `Lesson<5>` read, show and judge the saga's specs alike; each plays the tests it picks
//! (`picks.rs`). The exercise's and the solution's test file is one call
//! (`Subject::tested_by::<order_saga::Lesson<2>>()`), and the maintainers' checks play the same
//! tests by name (`kit::contract::play`).

use kit::harness::Pick;
use kit::spec::{Feed, Permutation, Run, Spec, SpecError};
use kit::{KitError, TestDatabase};

use crate::judge::{Expect, verdict};
use crate::orders::Orders;
use crate::scenarios::{self, FEED, Mix, gave_up_without_waiting, your_orders};
use crate::{Delivery, Handler, Outcome, PaymentEvent, Subject, Violation, ViolationKind, picks};

/// Lesson `N` of the order saga (2 to 5): the same rule, its own tests.
pub struct Lesson<const N: u8>;

impl<const N: u8> kit::Lesson for Lesson<N> {
    const FOLDER: &'static str = env!("CARGO_MANIFEST_DIR");
    type Event = PaymentEvent;
    type Output = Result<Outcome, sqlx::Error>;
    type Delivery = Delivery;
    type Kind = ViolationKind;
    type World = Orders;

    const FEED: Feed<PaymentEvent, Self::Output> = FEED;
    const YOURS: &'static str =
        "your spec's events were delivered in the order it gives (a scripted interleaving)";
    const PICKS: &'static [Pick] = match N {
        2 => picks::LESSON_02,
        3 => picks::LESSON_03,
        4 => picks::LESSON_04,
        5 => picks::LESSON_05,
        _ => panic!("the order saga is lessons 02 to 05"),
    };

    fn check(spec: &Spec) -> Result<(), SpecError> {
        your_orders(spec).map(drop)
    }

    async fn open(db: &TestDatabase) -> Result<Orders, KitError> {
        Orders::open(db).await
    }

    /// Each event's order, placed and pending, for the amount its first event pays.
    async fn ready(orders: &mut Orders, events: &[PaymentEvent]) -> Result<(), KitError> {
        let mut placed: Vec<&str> = Vec::new();
        for event in events {
            if !placed.contains(&event.order_id()) {
                orders.place(event.order_id(), event.amount_cents()).await?;
                placed.push(event.order_id());
            }
        }
        Ok(())
    }

    /// Plays `permutation` of `spec` against `subject` on `db` (each event's order placed), then
    /// judges it: each order must end resolved by the event of the first delivery for it the
    /// permutation plays (the first to reach the order), announced once; a delivery the spec
    /// expects to wait must not give up on its event without waiting; and the endings every
    /// spec shares (a delivery a fault ended must have said so, a neighbour must not have
    /// waited).
    async fn play<H: Handler>(
        subject: Subject<H>,
        db: &TestDatabase,
        saga: &mut Orders,
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        let (spec, permutation, during) = (run.spec, run.permutation, run.during);
        let orders = your_orders(spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
        let mut played = run.play(db, &subject.handler, &FEED).await?;
        let mut observed = Vec::new();
        for events in &orders {
            let order = events[0].order_id();
            let seen = (saga.observe(order, events).await).map_err(Violation::setup(during))?;
            played.interleaving.note(seen.summary());
            observed.push(seen);
        }
        let trace = played.interleaving.trace().clone();
        let mut delivered = std::mem::take(&mut played.delivered);
        for (events, observed) in orders.iter().zip(&observed) {
            let order = events[0].order_id();
            let (sessions, for_it): (Vec<String>, Vec<_>) = (delivered)
                .extract_if(.., |(_, event, _)| event.order_id() == order)
                .map(|(session, event, outcome)| (session, (event, outcome)))
                .unzip();
            let expect =
                Expect::ResolvedBy(first_to_reach(order, spec, permutation, &played.ended));
            verdict(&expect, observed, &for_it, during, Some(&trace))?;
            for (session, (_, outcome)) in sessions.iter().zip(&for_it) {
                if permutation.waits.contains(session) {
                    gave_up_without_waiting(played.waited(session), outcome, during, &trace)?;
                }
            }
        }
        played.end(during)
    }

    /// The scenarios data cannot say yet, by the names the lessons pick them under.
    async fn play_rust<H: Handler>(
        name: &'static str,
        subject: Subject<H>,
    ) -> Result<(), Violation> {
        let workers = || kit::contract::listed::<Self>().case(name);
        match name.split("::").next().unwrap_or(name) {
            "a_redelivery_after_the_first_changes_nothing" => {
                scenarios::redelivered_after_commit(subject).await
            }
            "an_event_for_an_unknown_order_is_an_error" => {
                scenarios::event_for_an_unknown_order(subject).await
            }
            "instalments_racing_for_one_order_both_count" => {
                scenarios::instalments_race_for_one_order(subject).await
            }
            "a_late_failure_cannot_flip_a_confirmed_order" => {
                scenarios::late_failure_after_confirmation(subject).await
            }
            "a_redelivered_instalment_is_counted_once" => {
                scenarios::redelivered_instalment(subject).await
            }
            "workers_released_together_apply_each_event_once" => {
                scenarios::barrier(subject, Mix::SameEvent, workers()).await
            }
            "workers_released_together_resolve_the_order_once" => {
                scenarios::barrier(subject, Mix::Contradicting, workers()).await
            }
            "workers_released_together_announce_the_order_once" => {
                scenarios::barrier(subject, Mix::Mixed, workers()).await
            }
            other => {
                panic!("lesson 0{N} picks {other} but the saga plays no scenario by that name")
            }
        }
    }
}

/// The event that may resolve `order`: the first delivery's for it in the permutation's order,
/// or, if a fault ended that one before it committed, the next delivery's too.
fn first_to_reach(
    order: &str,
    spec: &Spec,
    permutation: &Permutation,
    ended: &[(String, PaymentEvent, kit::Fault)],
) -> Vec<PaymentEvent> {
    let deliveries = spec.deliveries();
    let mut candidates = Vec::new();
    for step in &permutation.steps {
        let Some((session, _)) = spec.step(step) else {
            continue;
        };
        let Some((_, _, json)) = deliveries.iter().find(|(s, _, _)| *s == session.name) else {
            continue;
        };
        let event = (FEED.read)(json).expect("checked before playing");
        if event.order_id() != order {
            continue;
        }
        candidates.push(event);
        if !ended.iter().any(|(s, _, _)| *s == session.name) {
            break;
        }
    }
    candidates
}
