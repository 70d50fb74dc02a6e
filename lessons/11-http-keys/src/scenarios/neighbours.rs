use kit::Script;

use super::{AMOUNT, CLIENT, KEY, judge, payment, prepare, send_each, sent_by, shown};
use crate::http::describe;
use crate::{Call, Delivery, Handler, Http, Subject, Violation};

/// The holder's lock on acme's row: a request of acme's stops as it charges acme, with whatever
/// it did before (its claim on the key, say) done and not committed.
const LOCK_ACME: &str = "BEGIN; SELECT 1 FROM clients WHERE id = 'acme' FOR UPDATE";

/// The second client of the scenario, which happens to choose the same key.
const OTHER_CLIENT: &str = "globex";

/// Two clients choose the same key, each for a payment of its own: keys are made up by the
/// clients, which do not ask each other. Each gets its own payment and, on a retry, its own
/// response.
pub async fn another_client_sends_the_same_key<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme sent a payment under its key, globex sent the same payment under the same key, \
         and both sent theirs again",
    );
    let (db, payments) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let theirs = Call::payment(OTHER_CLIENT, KEY, AMOUNT);
    let sent = send_each(
        &subject,
        &pool,
        &[payment(), theirs.clone(), payment(), theirs],
    )
    .await;
    let (ours, theirs): (Vec<_>, Vec<_>) = sent.into_iter().partition(|s| s.call.client == CLIENT);
    judge(&payments, CLIENT, &ours, during, false, None).await?;
    judge(&payments, OTHER_CLIENT, &theirs, during, false, None).await
}

// ANCHOR: other_clients
/// While acme's request is inside its transaction (stopped on a lock on acme's row, its claim
/// on the key made and not committed), globex sends a payment under the same key: it must go
/// through without waiting. A handler that locks the whole keys table, or takes one advisory
/// lock per key string for every client, or keys the table by the key alone, makes globex
/// wait for acme: one slow client then holds up every other.
pub async fn another_client_does_not_wait<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme's request was inside its transaction when globex sent a payment under the same \
         key (a scripted interleaving)",
    );
    let (db, payments) = prepare(&subject, during).await?;
    let (ours, theirs) = (payment(), Call::payment(OTHER_CLIENT, KEY, AMOUNT));
    let script = Script::new(&Http(subject.handler.clone()), shown)
        .sql("holder", "lock", LOCK_ACME)
        .sql("holder", "commit", "COMMIT")
        .deliver("api-1", "first", ours.clone())
        .deliver("api-2", "theirs", theirs.clone());
    // ANCHOR_END: other_clients
    let permutation = "lock first theirs commit";
    let (mut interleaving, ran) = kit::play(&db, script, permutation, describe, during).await?;
    let waited = ran.waited("api-2");
    let calls = [("api-1".to_string(), ours), ("api-2".to_string(), theirs)];
    let sent = sent_by(ran.outcomes, &calls.iter().collect::<Vec<_>>());
    let (ours, theirs): (Vec<_>, Vec<_>) = sent.into_iter().partition(|s| s.call.client == CLIENT);
    judge(
        &payments,
        CLIENT,
        &ours,
        during,
        true,
        Some(&mut interleaving),
    )
    .await?;
    judge(
        &payments,
        OTHER_CLIENT,
        &theirs,
        during,
        true,
        Some(&mut interleaving),
    )
    .await?;
    let held = "acme's row of clients";
    Violation::unless_waited(waited, OTHER_CLIENT, held, during, interleaving.trace())
}
