//! The test's own view of the ledger, through its own session (tokio-postgres), never through
//! the pool the code under test uses. Times cross this session as RFC 3339 text.

use chrono::{DateTime, Utc};
use kit::{KitError, TestDatabase};

pub struct Ledger {
    client: tokio_postgres::Client,
}

/// One row of `processed_events` for an event: the days it says it was received and occurred.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRow {
    pub received_on: String,
    pub occurred_on: String,
}

/// The rows a prune should have removed: how many are left, and when the oldest was received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Left {
    pub(crate) rows: i64,
    pub(crate) oldest: Option<String>,
}

/// Records how many rows each transaction deleted from processed_events, whatever statement
/// did it: a statement-level trigger sees every row a DELETE removed, from every partition.
const AUDIT_THE_PRUNE: &str = "
    CREATE TABLE prune_audit (xid xid8 NOT NULL, deleted bigint NOT NULL);
    CREATE FUNCTION audit_prune() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO prune_audit SELECT pg_current_xact_id(), count(*) FROM gone;
        RETURN NULL;
    END $$;
    CREATE TRIGGER audit_prune AFTER DELETE ON processed_events
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION audit_prune();";

impl Ledger {
    pub(crate) async fn open(db: &TestDatabase) -> Result<Ledger, KitError> {
        Ok(Ledger {
            client: db.session().await?,
        })
    }

    /// How many times the event was credited.
    pub(crate) async fn credits(&self, event_id: &str) -> Result<i64, KitError> {
        let row = self
            .client
            .query_one(
                "SELECT count(*) FROM credits WHERE event_id = $1",
                &[&event_id],
            )
            .await
            .map_err(KitError::observer("reading the credits"))?;
        Ok(row.get(0))
    }

    /// How many rows processed_events holds, all events together.
    pub(crate) async fn row_count(&self) -> Result<i64, KitError> {
        let row = (self.client)
            .query_one("SELECT count(*) FROM processed_events", &[])
            .await
            .map_err(KitError::observer("counting processed_events"))?;
        Ok(row.get(0))
    }

    /// The event's rows in processed_events.
    pub(crate) async fn rows(&self, event_id: &str) -> Result<Vec<KeyRow>, KitError> {
        let rows = self
            .client
            .query(
                "SELECT received_on::text, occurred_on::text FROM processed_events
                  WHERE event_id = $1 ORDER BY received_at",
                &[&event_id],
            )
            .await
            .map_err(KitError::observer("reading processed_events"))?;
        Ok(rows
            .iter()
            .map(|row| KeyRow {
                received_on: row.get(0),
                occurred_on: row.get(1),
            })
            .collect())
    }

    /// The rows received before `cutoff`.
    pub(crate) async fn received_before(&self, cutoff: DateTime<Utc>) -> Result<Left, KitError> {
        let row = self
            .client
            .query_one(
                "SELECT count(*), to_char(min(received_at) AT TIME ZONE 'UTC',
                                          'YYYY-MM-DD HH24:MI')
                   FROM processed_events WHERE received_at < ($1::text)::timestamptz",
                &[&cutoff.to_rfc3339()],
            )
            .await
            .map_err(KitError::observer("reading processed_events"))?;
        Ok(Left {
            rows: row.get(0),
            oldest: row.get(1),
        })
    }

    /// Writes `count` rows to processed_events, as if that many events had been handled one
    /// second apart from `from` on: the backlog a prune finds. Committed at once.
    pub(crate) async fn backlog(
        &self,
        prefix: &str,
        count: i64,
        from: DateTime<Utc>,
    ) -> Result<(), KitError> {
        self.client
            .execute(
                "INSERT INTO processed_events (event_id, occurred_on, received_on, received_at)
                 SELECT $1 || i, (t AT TIME ZONE 'UTC')::date, (t AT TIME ZONE 'UTC')::date, t
                   FROM generate_series(1, $2::bigint) AS i,
                        LATERAL (SELECT ($3::text)::timestamptz + i * interval '1 second') AS s(t)",
                &[&prefix, &count, &from.to_rfc3339()],
            )
            .await
            .map_err(KitError::observer("writing a backlog to processed_events"))?;
        Ok(())
    }

    /// From now on, every DELETE on processed_events is counted per transaction.
    pub(crate) async fn audit(&self) -> Result<(), KitError> {
        self.client
            .batch_execute(AUDIT_THE_PRUNE)
            .await
            .map_err(KitError::observer("installing the prune's audit trigger"))
    }

    /// The most rows one transaction deleted since [`Ledger::audit`], and how many
    /// transactions deleted any.
    pub(crate) async fn largest_transaction(&self) -> Result<(i64, i64), KitError> {
        let row = self
            .client
            .query_one(
                "SELECT coalesce(max(deleted), 0)::bigint, count(*)
                   FROM (SELECT sum(deleted) AS deleted FROM prune_audit GROUP BY xid) t",
                &[],
            )
            .await
            .map_err(KitError::observer("reading the prune's audit"))?;
        Ok((row.get(0), row.get(1)))
    }
}
