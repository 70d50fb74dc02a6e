//! Lesson 12: the payment is a charge at a provider. The handler you are given is lesson 11's
//! solution, with the payment now made at the provider: it claims the key, charges, and records
//! the charge and the response, all in one transaction.

use atomic_phases::{Attempt, ChargeRequest, Completion, LEASE};
use http_keys::{PaymentRequest, Reply, Stored};
use sqlx::PgPool;

// ANCHOR: handler
pub async fn create_payment(pool: &PgPool, attempt: &Attempt) -> Result<Reply, sqlx::Error> {
    let request = &attempt.request;
    let mut tx = pool.begin().await?;
    let claimed = sqlx::query(
        "INSERT INTO idempotency_keys (client_id, key, request) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING",
    )
    .bind(request.client())
    .bind(request.key())
    .bind(request.fingerprint())
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    if !claimed {
        let (first_request, status, body): (String, i32, String) = sqlx::query_as(
            "SELECT request, response_status, response_body FROM idempotency_keys
              WHERE client_id = $1 AND key = $2",
        )
        .bind(request.client())
        .bind(request.key())
        .fetch_one(&mut *tx)
        .await?;
        if first_request != request.fingerprint() {
            return Ok(Reply::KeyReused);
        }
        let status = u16::try_from(status).expect("an HTTP status fits in u16");
        return Ok(Reply::Replayed(Stored { status, body }));
    }
    // TODO: the charge is made at the provider, inside our transaction. If the provider charges
    // and the answer is lost, the transaction rolls back and the key with it: what does the
    // client's retry do then?
    let Ok(charge) = attempt
        .provider
        .charge_without_key(&charge_of(request))
        .await
    else {
        return Ok(Reply::Unavailable {
            retry_after_seconds: u32::try_from(LEASE.num_seconds()).unwrap_or(1),
        });
    };
    let payment = request.payment();
    sqlx::query(
        "INSERT INTO clients (id, charged_cents) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET charged_cents = clients.charged_cents + $2",
    )
    .bind(request.client())
    .bind(payment.amount_cents)
    .execute(&mut *tx)
    .await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO charges (client_id, amount_cents, currency, provider_charge_id)
         VALUES ($1, $2, $3, $4) RETURNING id",
    )
    .bind(request.client())
    .bind(payment.amount_cents)
    .bind(&payment.currency)
    .bind(&charge.id)
    .fetch_one(&mut *tx)
    .await?;
    let response = Stored {
        status: 201,
        body: serde_json::json!({
            "id": format!("pay_{id}"),
            "object": "payment",
            "amount_cents": payment.amount_cents,
            "currency": payment.currency,
            "provider_charge": charge.id,
        })
        .to_string(),
    };
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
}
// ANCHOR_END: handler

/// The completer: finishes the requests that died between their phases. As shipped, there are
/// none to finish: a request's work is one transaction, which commits whole or not at all.
pub async fn complete(_pool: &PgPool, _completion: &Completion) -> Result<usize, sqlx::Error> {
    Ok(0)
}

fn charge_of(request: &PaymentRequest) -> ChargeRequest {
    ChargeRequest {
        customer: request.client().to_string(),
        amount_cents: request.payment().amount_cents,
        currency: request.payment().currency.clone(),
    }
}
