//! Lesson 11: the payment API's handler. `POST /payments` calls it for every request the API
//! accepted (the API itself, with its checks of the key and the body, is in
//! lessons/11-http-keys/src/server.rs; the payment, in lessons/11-http-keys/src/payment.rs).
//! Your table is in this crate's migrations/.

use http_keys::{Payment, PaymentRequest, Reply, Stored};
use sqlx::PgPool;

// ANCHOR: handler
/// Creates the payment `request` asks for, once per idempotency key of its client, and answers
/// every retry of it as the first request was answered.
pub async fn create_payment(pool: &PgPool, request: &PaymentRequest) -> Result<Reply, sqlx::Error> {
    let mut tx = pool.begin().await?;
    // ANCHOR: claim
    // The claim is an insert, and the primary key decides it. A concurrent request's claim,
    // not yet committed, makes this one wait until that request commits (then this inserts
    // nothing) or rolls back (then this one claims the key). The wait is bounded: past
    // lock_timeout the first request is still in flight, and the client is told to come back.
    sqlx::query("SET LOCAL lock_timeout = '2s'")
        .execute(&mut *tx)
        .await?;
    let claim = sqlx::query(
        "INSERT INTO idempotency_keys (client_id, key, request) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING",
    )
    .bind(request.client())
    .bind(request.key())
    .bind(request.fingerprint())
    .execute(&mut *tx)
    .await;
    let claimed = match claim {
        Ok(done) => done.rows_affected() == 1,
        // 55P03 (lock_timeout) or 57014 (statement_timeout, a cancel): the wait for the
        // other request was cut short. Nothing was done; dropping `tx` rolls back.
        Err(error) if waited_too_long(&error) => return Ok(Reply::InFlight),
        Err(error) => return Err(error),
    };
    // ANCHOR_END: claim
    // ANCHOR: replay
    if !claimed {
        // The key's first request committed: what it stood for, and what it was answered.
        let (first_request, status, body): (String, i32, String) = sqlx::query_as(
            "SELECT request, response_status, response_body FROM idempotency_keys
              WHERE client_id = $1 AND key = $2",
        )
        .bind(request.client())
        .bind(request.key())
        .fetch_one(&mut *tx)
        .await?;
        // Compared here, after the wait, and not only before it: a different request that
        // arrived while the first was being written is still a different request.
        if first_request != request.fingerprint() {
            return Ok(Reply::KeyReused);
        }
        let status = u16::try_from(status).expect("an HTTP status fits in u16");
        return Ok(Reply::Replayed(Stored { status, body }));
    }
    // ANCHOR_END: replay
    // ANCHOR: effect
    // The payment and the response it gets commit together with the claim, or none of them
    // does: a request that fails leaves no key behind, and its retry starts afresh.
    let payment = Payment::create(&mut tx, request).await?;
    let response = payment.response();
    sqlx::query(
        "UPDATE idempotency_keys SET response_status = $3, response_body = $4
          WHERE client_id = $1 AND key = $2",
    )
    .bind(request.client())
    .bind(request.key())
    .bind(i32::from(response.status))
    .bind(&response.body)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Reply::Created(response))
    // ANCHOR_END: effect
}
// ANCHOR_END: handler

/// Whether `error` ended a wait for a lock: lock_timeout (55P03) or a cancelled statement
/// (57014, statement_timeout).
fn waited_too_long(error: &sqlx::Error) -> bool {
    let code = error.as_database_error().and_then(|e| e.code());
    matches!(code.as_deref(), Some("55P03" | "57014"))
}
