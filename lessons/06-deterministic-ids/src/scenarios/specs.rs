//! The lesson's scripted scenarios are data, `specs/*.spec`, and this is how every one of them
//! is played, a student's own included (`cargo workbook break 06`): a fresh database, the
//! spec's sessions in its order (the kit's engine), then the rule (`judge.rs`) over what the
//! card network, the step's record, its outbox and each delivery said.

use std::sync::LazyLock;

use kit::spec::{Permutation, Shipped, Spec, SpecError};

use super::{observe, prepare, shown};
use crate::judge::verdict;
use crate::{Delivery, Handler, OrderCreated, Subject, Violation};

/// The lesson's specs, parsed once, each checked as a student's would be.
pub static SHIPPED: LazyLock<Shipped> = LazyLock::new(|| {
    let files = [
        ("failed.spec", include_str!("../../specs/failed.spec")),
        ("forced.spec", include_str!("../../specs/forced.spec")),
    ];
    Shipped::parse("lessons/06-deterministic-ids", &files, |spec| {
        your_order(spec).map(drop)
    })
});

/// The test `test`: the permutation of the shipped spec `name` whose `test` line names it,
/// played against `subject`.
pub async fn spec_test<H: Handler>(
    subject: Subject<H>,
    name: &str,
    test: &str,
) -> Result<(), Violation> {
    let (spec, permutation, story) = SHIPPED.test(name, test);
    play(subject, spec, permutation, Delivery::Story(story)).await
}

/// A spec of the student's own (`cargo workbook break 06 FILE`), judged by the same rule.
pub async fn your_spec<H: Handler>(
    subject: Subject<H>,
    spec: &Spec,
    permutation: &Permutation,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "order.created was delivered in the order your spec gives (a scripted interleaving)",
    );
    play(subject, spec, permutation, during).await
}

/// The one order.created a spec delivers: the lesson's rule is about one order delivered more
/// than once, so every delivery must carry the same one. A spec that delivers two is refused,
/// with the line of the first that differs.
pub fn your_order(spec: &Spec) -> Result<OrderCreated, SpecError> {
    let mut first: Option<OrderCreated> = None;
    for (session, line, json) in spec.deliveries() {
        let event = OrderCreated::from_json(json).map_err(|why| SpecError {
            line,
            message: format!("{session} delivers what lesson 06 refuses: {why}"),
        })?;
        match &first {
            None => first = Some(event),
            Some(one) if one == &event => {}
            Some(one) => {
                return Err(SpecError {
                    line,
                    message: format!(
                        "{session} delivers order.created for {}, and an earlier session for {}: \
                         lesson 06's rule judges one order delivered more than once, so every \
                         delivery carries the same one",
                        event.order_id(),
                        one.order_id()
                    ),
                });
            }
        }
    }
    first.ok_or_else(|| SpecError {
        line: 1,
        message: "no session delivers anything: a spec races deliveries of one order.created, \
                  so at least one step is `deliver {…}`"
            .into(),
    })
}

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject`, then judges it: the rule over what the
/// network, the record and the outbox hold for the order, and the deliveries no fault ended;
/// then, a delivery a fault ended must have reported its failure.
async fn play<H: Handler>(
    subject: Subject<H>,
    spec: &Spec,
    permutation: &Permutation,
    during: Delivery,
) -> Result<(), Violation> {
    let order = your_order(spec).unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let (db, step) = prepare(&subject, during).await?;
    let read = |json: &str| OrderCreated::from_json(json).map_err(|e| e.to_string());
    let mut played = kit::spec::played::play(
        &db,
        spec,
        permutation,
        &subject.handler,
        shown,
        read,
        kit::describe_outcome,
        during,
    )
    .await?;
    let outcomes: Vec<_> = (played.delivered.drain(..))
        .map(|(_, _, outcome)| outcome)
        .collect();
    let interleaving = Some(&mut played.interleaving);
    let observed = observe(&step, order.order_id(), &[], during, interleaving).await?;
    verdict(
        &observed,
        &outcomes,
        during,
        Some(played.interleaving.trace()),
    )?;
    played.unless_failure_hidden(during)
}
// ANCHOR_END: play
