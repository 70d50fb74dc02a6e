//! The test's own view of the pipeline, through its own session (tokio-postgres), never through
//! the pool the code under test uses: it writes the producer's outbox rows, reads what the
//! broker holds, and counts what reached the warehouse.

use kit::{KitError, TestDatabase};

use crate::Message;

pub(crate) struct World {
    client: tokio_postgres::Client,
}

/// What became of one outbox row.
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

    /// Every outbox row that committed (whatever the relay did to it since), and what became of
    /// it. A row the relay deleted counts as marked sent.
    pub(crate) async fn fates(&self) -> Result<Vec<RowFate>, KitError> {
        let rows = self
            .client
            .query(
                "SELECT w.id, w.event_id,
                        (SELECT count(*) FROM broker.messages m WHERE m.outbox_id = w.id),
                        (SELECT count(*) FROM shipments s WHERE s.outbox_id = w.id),
                        COALESCE((SELECT o.sent_at IS NOT NULL FROM outbox o WHERE o.id = w.id),
                                 true)
                   FROM outbox_written w ORDER BY w.id",
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
