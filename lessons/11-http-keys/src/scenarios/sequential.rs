use super::{AMOUNT, CLIENT, KEY, OTHER_AMOUNT, judge, payment, prepare, send_each};
use crate::{Api, Call, Delivery, Subject, Violation};

// ANCHOR: retried_after_a_refund
/// The client's first response is lost (a timeout, a dropped connection), the back office
/// refunds the payment meanwhile, and the client sends the same request again, its JSON
/// written in another order. It must get the first response back, byte for byte, marked as a
/// replay: not a second payment, and not the payment as it is now.
pub async fn retried_after_a_refund<H: Api>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme sent a payment under its key, the back office refunded the payment, and acme \
         sent the same request again (its JSON fields in another order) after the first \
         response was lost",
    );
    let (db, payments) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let mut sent = send_each(&subject, &pool, &[payment()]).await;
    (payments.refund(CLIENT).await).map_err(Violation::setup(during))?;
    let again = Call {
        body: format!(r#"{{"currency":"eur","amount_cents":{AMOUNT}}}"#),
        ..payment()
    };
    sent.extend(send_each(&subject, &pool, &[again]).await);
    judge(&payments, CLIENT, &sent, during, false, None).await
}
// ANCHOR_END: retried_after_a_refund

/// The client sends a second, different payment under the key of the first (a bug in the
/// client: it reused a key), then retries the first. The second is refused, and changes
/// nothing; the first's retry still gets the first response.
pub async fn key_sent_again_with_another_request<H: Api>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme sent a payment under its key, then a payment of another amount under the same \
         key, then the first payment again",
    );
    let (db, payments) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let other = Call::payment(CLIENT, KEY, OTHER_AMOUNT);
    let sent = send_each(&subject, &pool, &[payment(), other, payment()]).await;
    judge(&payments, CLIENT, &sent, during, false, None).await
}
