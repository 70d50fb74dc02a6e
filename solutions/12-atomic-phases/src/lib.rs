//! Lesson 12: the payment is a charge at a provider, which no transaction of ours can take back.
//! The work is cut into atomic phases around the call: the claim commits before it, the charge
//! is recorded after it, and the key's row says how far a request got, so that a retry (or the
//! completer) can finish a request that died in between.

use atomic_phases::{Attempt, ChargeRequest, Completion, LEASE, ProviderError};
use chrono::{DateTime, Utc};
use http_keys::{NewPayment, PaymentRequest, Reply, Stored};
use sqlx::PgPool;

// ANCHOR: handler
pub async fn create_payment(pool: &PgPool, attempt: &Attempt) -> Result<Reply, sqlx::Error> {
    let Attempt {
        request,
        provider,
        now,
    } = attempt;
    // Phase 1: the key is ours, with a lease and a fence, or the request is answered now.
    let (fence, provider_key) = match claim(pool, request, *now).await? {
        Claim::Ours {
            fence,
            provider_key,
        } => (fence, provider_key),
        Claim::Answered(reply) => return Ok(reply),
    };
    // The provider, outside any transaction, under the key the claim made: a retry, or the
    // completer, asks again under the same key and gets the same charge, never a second one.
    let charge = match provider.charge(&provider_key, &charge_of(request)).await {
        Ok(charge) => charge,
        // Failed, or no answer: charged or not, we cannot tell. The key stays claimed, and the
        // retry after the lease asks the provider again under the same key.
        Err(ProviderError::NoAnswer(_) | ProviderError::Refused { .. }) => {
            return Ok(Reply::Unavailable {
                retry_after_seconds: u32::try_from(LEASE.num_seconds()).unwrap_or(1),
            });
        }
    };
    // Phase 2: record the charge and the response, if the key is still ours.
    let key = (request.client(), request.key());
    record(pool, key, request.payment(), fence, &charge.id).await
}
// ANCHOR_END: handler

enum Claim {
    /// The key is this request's, under `fence`; the provider is asked under `provider_key`.
    Ours {
        fence: i64,
        provider_key: String,
    },
    Answered(Reply),
}

// ANCHOR: claim
/// Phase 1, one transaction: claim the key, or take over one whose lease has run out.
async fn claim(
    pool: &PgPool,
    request: &PaymentRequest,
    now: DateTime<Utc>,
) -> Result<Claim, sqlx::Error> {
    let mut tx = pool.begin().await?;
    // A new row makes its provider key (the column's default), and returns it.
    let claimed: Option<String> = sqlx::query_scalar(
        "INSERT INTO idempotency_keys (client_id, key, request, locked_until)
         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING provider_key::text",
    )
    .bind(request.client())
    .bind(request.key())
    .bind(request.fingerprint())
    .bind(now + LEASE)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(provider_key) = claimed {
        tx.commit().await?;
        return Ok(Claim::Ours {
            fence: 1,
            provider_key,
        });
    }
    let (first_request, point, locked_until, status, body): (
        String,
        String,
        Option<DateTime<Utc>>,
        Option<i32>,
        Option<String>,
    ) = sqlx::query_as(
        "SELECT request, recovery_point, locked_until, response_status, response_body
           FROM idempotency_keys WHERE client_id = $1 AND key = $2 FOR UPDATE",
    )
    .bind(request.client())
    .bind(request.key())
    .fetch_one(&mut *tx)
    .await?;
    if first_request != request.fingerprint() {
        return Ok(Claim::Answered(Reply::KeyReused));
    }
    if point == "finished" {
        let (Some(status), Some(body)) = (status, body) else {
            return Ok(Claim::Answered(Reply::InFlight));
        };
        let status = u16::try_from(status).expect("an HTTP status fits in u16");
        return Ok(Claim::Answered(Reply::Replayed(Stored { status, body })));
    }
    if locked_until.is_some_and(|until| until >= now) {
        return Ok(Claim::Answered(Reply::InFlight));
    }
    // The lease ran out: whoever held it is presumed dead. Take the key over, with a new fence,
    // and ask the provider under the key's own provider key, as the first attempt did.
    let (fence, provider_key): (i64, String) = sqlx::query_as(
        "UPDATE idempotency_keys SET locked_until = $3, fence = fence + 1
          WHERE client_id = $1 AND key = $2 RETURNING fence, provider_key::text",
    )
    .bind(request.client())
    .bind(request.key())
    .bind(now + LEASE)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Claim::Ours {
        fence,
        provider_key,
    })
}
// ANCHOR_END: claim

// ANCHOR: record
/// Phase 2, one transaction: the key finished, our record of the charge, the client's total,
/// and the response, all or nothing, and only while `fence` is still the key's.
async fn record(
    pool: &PgPool,
    (client, key): (&str, &str),
    payment: &NewPayment,
    fence: i64,
    provider_charge: &str,
) -> Result<Reply, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let held = sqlx::query(
        "UPDATE idempotency_keys SET recovery_point = 'finished', locked_until = NULL
          WHERE client_id = $1 AND key = $2 AND fence = $3 AND recovery_point = 'started'",
    )
    .bind(client)
    .bind(key)
    .bind(fence)
    .execute(&mut *tx)
    .await?;
    if held.rows_affected() == 0 {
        // Fenced off: someone took the key over while this request was away. It writes
        // nothing; its client's retry gets whatever the one that took over answered.
        return Ok(Reply::InFlight);
    }
    sqlx::query(
        "INSERT INTO clients (id, charged_cents) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET charged_cents = clients.charged_cents + $2",
    )
    .bind(client)
    .bind(payment.amount_cents)
    .execute(&mut *tx)
    .await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO charges (client_id, amount_cents, currency, provider_charge_id)
         VALUES ($1, $2, $3, $4) RETURNING id",
    )
    .bind(client)
    .bind(payment.amount_cents)
    .bind(&payment.currency)
    .bind(provider_charge)
    .fetch_one(&mut *tx)
    .await?;
    let response = Stored {
        status: 201,
        body: serde_json::json!({
            "id": format!("pay_{id}"),
            "object": "payment",
            "amount_cents": payment.amount_cents,
            "currency": payment.currency,
            "provider_charge": provider_charge,
        })
        .to_string(),
    };
    sqlx::query(
        "UPDATE idempotency_keys SET response_status = $3, response_body = $4
          WHERE client_id = $1 AND key = $2",
    )
    .bind(client)
    .bind(key)
    .bind(i32::from(response.status))
    .bind(&response.body)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Reply::Created(response))
}
// ANCHOR_END: record

// ANCHOR: complete
/// The completer: every key still 'started' whose lease has run out at `now` belongs to a
/// request that died between its phases. Take it over, as its client's retry would, ask the
/// provider again under the key's provider key, and record what it answers. Returns how many it
/// finished.
pub async fn complete(pool: &PgPool, completion: &Completion) -> Result<usize, sqlx::Error> {
    let Completion { provider, now } = completion;
    let now = *now;
    let abandoned: Vec<(String, String, String, String)> = sqlx::query_as(
        "SELECT client_id, key, request, provider_key::text FROM idempotency_keys
          WHERE recovery_point = 'started' AND locked_until < $1",
    )
    .bind(now)
    .fetch_all(pool)
    .await?;
    let mut finished = 0;
    for (client, key, request, provider_key) in abandoned {
        // The lease, taken with a new fence, only if nobody took it since the look.
        let fence: Option<i64> = sqlx::query_scalar(
            "UPDATE idempotency_keys SET locked_until = $3, fence = fence + 1
              WHERE client_id = $1 AND key = $2
                AND recovery_point = 'started' AND locked_until < $4
             RETURNING fence",
        )
        .bind(&client)
        .bind(&key)
        .bind(now + LEASE)
        .bind(now)
        .fetch_optional(pool)
        .await?;
        let Some(fence) = fence else { continue };
        let Some(payment) = payment_of(&request) else {
            continue;
        };
        let charge = ChargeRequest {
            customer: client.clone(),
            amount_cents: payment.amount_cents,
            currency: payment.currency.clone(),
        };
        let Ok(charge) = provider.charge(&provider_key, &charge).await else {
            continue; // the provider again: the next run of the completer tries again
        };
        if let Reply::Created(_) =
            record(pool, (&client, &key), &payment, fence, &charge.id).await?
        {
            finished += 1;
        }
    }
    Ok(finished)
}
// ANCHOR_END: complete

/// The payment a stored fingerprint stands for (`POST /payments {…}`).
fn payment_of(fingerprint: &str) -> Option<NewPayment> {
    serde_json::from_str(fingerprint.strip_prefix("POST /payments ")?).ok()
}

fn charge_of(request: &PaymentRequest) -> ChargeRequest {
    ChargeRequest {
        customer: request.client().to_string(),
        amount_cents: request.payment().amount_cents,
        currency: request.payment().currency.clone(),
    }
}
