//! Another client that chooses acme's key. (While acme's request is in flight, its request must
//! not wait for acme's: `specs/neighbours.spec`.)

use super::{AMOUNT, CLIENT, KEY, judge, payment, prepare, send_each};
use crate::{Api, Call, Delivery, Subject, Violation};

/// The second client of the scenario, which happens to choose the same key.
const OTHER_CLIENT: &str = "globex";

/// Two clients choose the same key, each for a payment of its own: keys are made up by the
/// clients, which do not ask each other. Each gets its own payment and, on a retry, its own
/// response.
pub async fn another_client_sends_the_same_key<H: Api>(
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
