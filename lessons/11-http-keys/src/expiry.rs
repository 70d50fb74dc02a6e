//! How long the API remembers a key, and the job that forgets the keys older than that: chapter
//! 9's prune (`solutions/09-retention`), applied to `idempotency_keys`. It is given, not the
//! student's: it relies on two names of the student's table, `idempotency_keys` and its
//! `created_at`, the moment the key was claimed.

use chrono::{DateTime, TimeDelta, Utc};
use sqlx::PgPool;

// ANCHOR: window
/// The API's published promise: a retry sent up to this long after the key's first request is
/// answered as that request was. After it, the key may be forgotten, and the same key is a new
/// request (Stripe's v1 window; its v2 APIs keep keys 30 days, Adyen at least 7).
pub const KEY_WINDOW: TimeDelta = TimeDelta::hours(24);

/// The most keys one transaction of the job deletes.
pub const BATCH_LIMIT: i64 = 1_000;
// ANCHOR_END: window

// ANCHOR: expire_keys
/// Deletes the keys claimed more than [`KEY_WINDOW`] before `now` (a key claimed exactly at the
/// horizon is kept), in batches, and returns how many it deleted. `now` is the caller's clock,
/// never the database's `now()`, so that a test moves it by a day without waiting one.
pub async fn expire_keys(pool: &PgPool, now: DateTime<Utc>) -> Result<u64, sqlx::Error> {
    let horizon = now - KEY_WINDOW;
    let mut deleted = 0;
    loop {
        // One bounded batch per statement, so per transaction: row locks held for
        // milliseconds, and requests, which claim new keys, never wait for the job. A key
        // being claimed right now is not committed, so no batch can see it.
        let batch = sqlx::query(
            "DELETE FROM idempotency_keys
              WHERE (client_id, key) IN (SELECT client_id, key FROM idempotency_keys
                                          WHERE created_at < $1 LIMIT $2)
                AND created_at < $1",
        )
        .bind(horizon)
        .bind(BATCH_LIMIT)
        .execute(pool)
        .await?;
        if batch.rows_affected() == 0 {
            return Ok(deleted);
        }
        deleted += batch.rows_affected();
    }
}
// ANCHOR_END: expire_keys

#[cfg(test)]
mod tests {
    use super::*;

    /// The two columns the job relies on, and a key whose first request is still in flight.
    async fn keys() -> (kit::TestDatabase, PgPool) {
        let schema = kit::Schema::from_dirs(Vec::<std::path::PathBuf>::new());
        let db = kit::TestDatabase::create(&schema).await.unwrap();
        let pool = db.pool(2).await.unwrap();
        sqlx::query(
            "CREATE TABLE idempotency_keys (client_id TEXT, key TEXT, created_at TIMESTAMPTZ,
                                            PRIMARY KEY (client_id, key))",
        )
        .execute(&pool)
        .await
        .unwrap();
        (db, pool)
    }

    async fn claim(pool: &PgPool, key: &str, at: DateTime<Utc>) {
        sqlx::query("INSERT INTO idempotency_keys VALUES ('acme', $1, $2)")
            .bind(key)
            .bind(at)
            .execute(pool)
            .await
            .unwrap();
    }

    async fn left(pool: &PgPool) -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM idempotency_keys")
            .fetch_one(pool)
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn a_key_is_kept_to_the_end_of_its_window_and_no_longer() {
        let (_db, pool) = keys().await;
        let claimed = Utc::now();
        claim(&pool, "k-1", claimed).await;
        assert_eq!(expire_keys(&pool, claimed + KEY_WINDOW).await.unwrap(), 0);
        assert_eq!(left(&pool).await, 1);
        let just_after = claimed + KEY_WINDOW + TimeDelta::microseconds(1);
        assert_eq!(expire_keys(&pool, just_after).await.unwrap(), 1);
        assert_eq!(left(&pool).await, 0);
    }

    /// More old keys than a batch holds: all go, and the young one stays.
    #[tokio::test]
    async fn a_backlog_goes_in_batches_and_spares_the_young() {
        let (_db, pool) = keys().await;
        let now = Utc::now();
        sqlx::query(
            "INSERT INTO idempotency_keys
             SELECT 'acme', 'old-' || i, $1 FROM generate_series(1, 2500) AS i",
        )
        .bind(now - TimeDelta::days(2))
        .execute(&pool)
        .await
        .unwrap();
        claim(&pool, "young", now - TimeDelta::hours(1)).await;
        assert_eq!(expire_keys(&pool, now).await.unwrap(), 2500);
        assert_eq!(left(&pool).await, 1);
    }

    /// A claim not yet committed is invisible to the job, which neither deletes it nor waits.
    #[tokio::test]
    async fn a_key_in_flight_is_neither_deleted_nor_waited_for() {
        let (_db, pool) = keys().await;
        let now = Utc::now();
        let mut in_flight = pool.begin().await.unwrap();
        sqlx::query("INSERT INTO idempotency_keys VALUES ('acme', 'k-1', $1)")
            .bind(now - TimeDelta::days(2))
            .execute(&mut *in_flight)
            .await
            .unwrap();
        assert_eq!(expire_keys(&pool, now).await.unwrap(), 0);
        in_flight.commit().await.unwrap();
        assert_eq!(left(&pool).await, 1);
    }
}
