//! The test's own view of the pipeline, through its own session (tokio-postgres), never through
//! the pool the code under test uses: it writes the producer's outbox rows, reads what the
//! broker holds, and counts what reached the warehouse.

use kit::{KitError, TestDatabase};

use crate::Message;

pub struct World {
    client: tokio_postgres::Client,
}

/// What became of one announcement: its outbox row (the latest, if the producer wrote it twice).
#[derive(Debug, Clone)]
pub(crate) struct RowFate {
    pub(crate) outbox_id: i64,
    pub(crate) event_id: String,
    /// How many times the broker holds it.
    pub(crate) published: i64,
    /// How many shipments it caused.
    pub(crate) shipped: i64,
    pub(crate) sent: bool,
}

/// The SQLSTATE of the broker's refusal ([`World::refuse`]): PL/pgSQL's `raise_exception`, the
/// code of an error a trigger raises. A correct relay returns it; nothing else in the lesson
/// raises it.
pub(crate) const REFUSED: &str = "P0001";

/// The payload of the announcement for `order_id`, as the producer writes it.
pub(crate) fn payload(order_id: &str) -> String {
    serde_json::json!({ "order_id": order_id }).to_string()
}

/// The SQL that writes `order_id`'s announcement to the outbox (for a scripted session).
pub(crate) fn insert_sql(order_id: &str) -> String {
    format!(
        "INSERT INTO outbox (event_id, payload) VALUES ('{order_id}:order', '{}')",
        payload(order_id)
    )
}

impl World {
    pub(crate) async fn open(db: &TestDatabase) -> Result<World, KitError> {
        Ok(World {
            client: db.session().await?,
        })
    }

    /// Commits the announcements of `orders` to the outbox, one transaction each, in order.
    pub(crate) async fn produce(&self, orders: &[String]) -> Result<(), KitError> {
        for order in orders {
            self.client
                .batch_execute(&insert_sql(order))
                .await
                .map_err(KitError::observer("writing to the outbox"))?;
        }
        Ok(())
    }

    /// The broker's messages after `position`, in order, with the last position read.
    pub(crate) async fn messages_after(
        &self,
        position: i64,
    ) -> Result<(Vec<Message>, i64), KitError> {
        let rows = self
            .client
            .query(
                "SELECT position, outbox_id, event_id, payload FROM broker.messages
                  WHERE position > $1 ORDER BY position",
                &[&position],
            )
            .await
            .map_err(KitError::observer("reading the broker"))?;
        let last = rows.last().map_or(position, |row| row.get(0));
        let messages = (rows.iter())
            .map(|row| Message {
                outbox_id: row.get(1),
                event_id: row.get(2),
                payload: row.get(3),
            })
            .collect();
        Ok((messages, last))
    }

    /// Every announcement the producer committed (whatever the relay did to its row since), and
    /// what became of it. An announcement is known by its event id, which every copy of it
    /// carries: a restored producer that announces it again writes a second row for one event.
    /// A row the relay deleted counts as marked sent.
    pub(crate) async fn fates(&self) -> Result<Vec<RowFate>, KitError> {
        let rows = self
            .client
            .query(
                "SELECT (array_agg(w.id ORDER BY w.seq DESC))[1], w.event_id,
                        (SELECT count(*) FROM broker.messages m WHERE m.event_id = w.event_id),
                        (SELECT count(*) FROM shipments s WHERE s.event_id = w.event_id),
                        bool_and(COALESCE((SELECT o.sent_at IS NOT NULL FROM outbox o
                                            WHERE o.id = w.id AND o.event_id = w.event_id),
                                          true))
                   FROM outbox_written w GROUP BY w.event_id ORDER BY min(w.seq)",
                &[],
            )
            .await
            .map_err(KitError::observer("reading what became of the outbox rows"))?;
        Ok(rows
            .iter()
            .map(|row| RowFate {
                outbox_id: row.get(0),
                event_id: row.get(1),
                published: row.get(2),
                shipped: row.get(3),
                sent: row.get(4),
            })
            .collect())
    }

    /// From now on, the broker refuses every message of `event_id`, as a broker that is down
    /// for one partition would: the publish fails with [`REFUSED`], and the broker holds
    /// nothing of it.
    pub(crate) async fn refuse(&self, event_id: &str) -> Result<(), KitError> {
        self.client
            .batch_execute(&format!(
                "CREATE FUNCTION broker.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN
                     RAISE EXCEPTION 'the broker refused the message of %', NEW.event_id
                         USING ERRCODE = '{REFUSED}',
                               DETAIL = 'a fault the test injected: the broker is down';
                 END;
                 $$;
                 CREATE TRIGGER refuse BEFORE INSERT ON broker.messages FOR EACH ROW
                     WHEN (NEW.event_id = '{event_id}') EXECUTE FUNCTION broker.refuse();"
            ))
            .await
            .map_err(KitError::observer("making the broker refuse a message"))
    }

    /// The broker takes every message again.
    pub(crate) async fn stop_refusing(&self) -> Result<(), KitError> {
        self.client
            .batch_execute("DROP TRIGGER refuse ON broker.messages; DROP FUNCTION broker.refuse()")
            .await
            .map_err(KitError::observer("making the broker take messages again"))
    }

    /// The producer's database, restored from a backup taken before any announcement: its
    /// outbox empty, its relay's progress back at the start, and its identity sequence where
    /// it stood then, so that the next rows draw the ids earlier ones had. The broker and the
    /// warehouse are other systems, and keep everything.
    pub(crate) async fn restore_the_producer(&self) -> Result<(), KitError> {
        self.client
            .batch_execute(
                "BEGIN;
                 DELETE FROM outbox;
                 UPDATE relay_progress SET last_id = 0, last_created = '-infinity';
                 ALTER TABLE outbox ALTER COLUMN id RESTART WITH 1;
                 COMMIT;",
            )
            .await
            .map_err(KitError::observer("restoring the producer's database"))
    }
}

impl RowFate {
    pub(crate) fn summary(&self) -> String {
        format!(
            "row {} ({}): published {}x, shipped {}x{}",
            self.outbox_id,
            self.event_id,
            self.published,
            self.shipped,
            if self.sent { "" } else { ", not marked sent" }
        )
    }
}
