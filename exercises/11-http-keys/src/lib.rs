//! Lesson 11: the payment API's handler. `POST /payments` calls it for every request the API
//! accepted (the API itself, with its checks of the key and the body, is in
//! lessons/11-http-keys/src/server.rs; the payment, in lessons/11-http-keys/src/payment.rs).
//! Your table is in this crate's migrations/.

use http_keys::{Payment, PaymentRequest, Reply};
use sqlx::PgPool;

// ANCHOR: handler
/// Creates the payment `request` asks for, once per idempotency key of its client, and answers
/// every retry of it as the first request was answered.
pub async fn create_payment(pool: &PgPool, request: &PaymentRequest) -> Result<Reply, sqlx::Error> {
    // TODO: two requests with one key, sent at the same moment, both find the key missing and
    // both pay; a retry is answered with the payment as it is now, not with the response the
    // first request got; and a different request under a used key gets the first one's payment.
    // "Look the key up: if we have seen it, answer with its payment."
    let seen: Option<i64> = sqlx::query_scalar(
        "SELECT payment_id FROM idempotency_keys WHERE client_id = $1 AND key = $2",
    )
    .bind(request.client())
    .bind(request.key())
    .fetch_optional(pool)
    .await?;
    if let Some(payment_id) = seen {
        let mut conn = pool.acquire().await?;
        if let Some(payment) = Payment::find(&mut conn, payment_id).await? {
            return Ok(Reply::Replayed(payment.response()));
        }
    }

    // "A new key: pay, and remember the key with the payment."
    let mut tx = pool.begin().await?;
    let payment = Payment::create(&mut tx, request).await?;
    sqlx::query("INSERT INTO idempotency_keys (client_id, key, payment_id) VALUES ($1, $2, $3)")
        .bind(request.client())
        .bind(request.key())
        .bind(payment.id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Reply::Created(payment.response()))
}
// ANCHOR_END: handler
