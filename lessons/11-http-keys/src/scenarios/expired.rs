use chrono::{DateTime, TimeDelta, Utc};
use kit::KitError;
use sqlx::PgPool;

use super::{CLIENT, KEY, judge, payment, prepare, send_each};
use crate::judge::verdict;
use crate::{Api, Delivery, KEY_WINDOW, Kept, Subject, Violation, ViolationKind, expire_keys};

// ANCHOR: forgotten_after_its_window
/// acme pays, and the keys' expiry job runs at the very end of the key's window: acme's retry
/// then is still a retry. The job runs again a microsecond later, and forgets the key: the same
/// request under it is a new payment, as the API publishes.
pub async fn forgotten_after_its_window<H: Api>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme sent a payment under its key; the keys' expiry ran at the last moment of the key's \
         24-hour window, and acme retried; then it ran once the window was over, and acme sent \
         the same request again",
    );
    let (db, payments) = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let mut sent = send_each(&subject, &pool, &[payment()]).await;
    let claimed = claimed_at(&pool).await.map_err(Violation::setup(during))?;
    expire(&pool, claimed + KEY_WINDOW)
        .await
        .map_err(Violation::setup(during))?;
    sent.extend(send_each(&subject, &pool, &[payment()]).await);
    judge(&payments, CLIENT, &sent, during, false, None).await?;

    let past = claimed + KEY_WINDOW + TimeDelta::microseconds(1);
    expire(&pool, past)
        .await
        .map_err(Violation::setup(during))?;
    // Read before the request: whether the job's DELETE left the row, and why it did.
    let survived = created_at(&pool).await.map_err(Violation::setup(during))?;
    let again = send_each(&subject, &pool, &[payment()]).await;
    let rows = (payments.of(CLIENT).await).map_err(Violation::setup(during))?;
    if let [Ok(answer)] = &again.iter().map(|s| &s.outcome).collect::<Vec<_>>()[..]
        && answer.replayed
        && rows.len() == 1
    {
        return Err(Violation::caught(during, None)(
            ViolationKind::RememberedPastWindow {
                answer: answer.shown(),
                kept: survived.map(|now| Kept { claimed, now }),
            },
        ));
    }
    // The forgotten key's new life, judged on its own: its payment is acme's second.
    let new_life = rows.get(1..).unwrap_or_default();
    let ids = (payments.ids().await).map_err(Violation::setup(during))?;
    verdict(CLIENT, new_life, &again, false, &ids).map_err(Violation::caught(during, None))
}
// ANCHOR_END: forgotten_after_its_window

/// When the scenario's key was claimed, as the handler's table says.
async fn claimed_at(pool: &PgPool) -> Result<DateTime<Utc>, KitError> {
    sqlx::query_scalar("SELECT created_at FROM idempotency_keys WHERE client_id = $1 AND key = $2")
        .bind(CLIENT)
        .bind(KEY)
        .fetch_one(pool)
        .await
        .map_err(KitError::database(
            "read when the key was claimed: the keys' expiry job reads created_at of \
             idempotency_keys, one row per client and key",
        ))
}

/// The key's `created_at` once the job has run past its window, or `None`: the job deleted it.
async fn created_at(pool: &PgPool) -> Result<Option<DateTime<Utc>>, KitError> {
    sqlx::query_scalar("SELECT created_at FROM idempotency_keys WHERE client_id = $1 AND key = $2")
        .bind(CLIENT)
        .bind(KEY)
        .fetch_optional(pool)
        .await
        .map_err(KitError::database(
            "read whether the keys' expiry job left the key's row in idempotency_keys",
        ))
}

async fn expire(pool: &PgPool, now: DateTime<Utc>) -> Result<u64, KitError> {
    expire_keys(pool, now).await.map_err(KitError::database(
        "run the keys' expiry job (it deletes rows of idempotency_keys by created_at)",
    ))
}
