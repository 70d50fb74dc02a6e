//! The broker refuses a publish: not a crash, an error the relay's pass is handed, and goes on
//! from. Whatever the pass does with the rest, the refused row must go out later.

use super::{MAX, drain, orders, prepare};
use crate::judge::verdict;
use crate::world::REFUSED;
use crate::{Delivery, Done, Handler, Relay, Step, Subject, Violation, ViolationKind};

/// The event the broker refuses.
const REFUSED_EVENT: &str = "ord-2:order";

// ANCHOR: refused
/// Two rows in the outbox; the broker refuses the second (an error from the publish, once), and
/// takes messages again after that pass. The relays then run until they find nothing, and the
/// consumer handles every message. Each order must ship once.
pub async fn broker_refuses_a_message<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "a relay's pass took two outbox rows and the broker refused the second (an error the \
         test injected, once); then the broker took messages again, the relays ran until they \
         found nothing, and the consumer handled every message",
    );
    let (db, world) = prepare(&subject, during).await?;
    (world.produce(&orders(2)).await).map_err(Violation::setup(during))?;
    (world.refuse(REFUSED_EVENT).await).map_err(Violation::setup(during))?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let refused_pass = (subject.handler)
        .call(pool.clone(), Step::Relay(Relay::new(MAX)))
        .await;
    (world.stop_refusing().await).map_err(Violation::setup(during))?;
    // ANCHOR_END: refused
    // The broker's error, returned by the pass, is the relay doing its job: it is not judged.
    let returned_the_refusal =
        matches!(&refused_pass, Err(error) if kit::code_of(error).as_deref() == Some(REFUSED));
    let reported = match &refused_pass {
        Ok(Done::Relayed(rows)) => Some(*rows),
        _ => None,
    };
    let mut steps = Vec::new();
    if !returned_the_refusal {
        steps.push(refused_pass);
    }
    steps.extend(drain(&subject, &world, &pool, during).await?);
    verdict(&world, &steps, during, None)
        .await
        .map(drop)
        .map_err(|mut violation| {
            // What the test saw of the pass the broker refused, for the message.
            if let ViolationKind::NeverPublished {
                event_id,
                marked_sent: true,
                refusal_reported_as,
                ..
            } = &mut violation.kind
                && event_id == REFUSED_EVENT
            {
                *refusal_reported_as = reported;
            }
            violation
        })
}
