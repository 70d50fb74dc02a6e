//! The test's own view of the orders, through its own session (tokio-postgres), never through
//! the pool the code under test uses.

use kit::{KitError, TestDatabase};

use crate::PaymentEvent;

pub struct Orders {
    client: tokio_postgres::Client,
}

/// What the test saw in the database after the deliveries, for one order.
#[derive(Debug, Clone)]
pub(crate) struct Observed {
    pub(crate) order_id: String,
    pub(crate) status: String,
    pub(crate) paid_cents: i64,
    /// The order's outbox rows, oldest first.
    pub(crate) outbox: Vec<Announcement>,
    /// Which of the delivered event ids processed_events holds.
    pub(crate) recorded: Vec<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct Announcement {
    /// `order.confirmed` or `order.cancelled`.
    pub(crate) kind: String,
    /// The payment event that caused it.
    pub(crate) caused_by: String,
}

impl Orders {
    pub(crate) async fn open(db: &TestDatabase) -> Result<Orders, KitError> {
        Ok(Orders {
            client: db.session().await?,
        })
    }

    /// A pending order, nothing paid yet.
    pub(crate) async fn place(&self, order_id: &str, amount_cents: i64) -> Result<(), KitError> {
        self.client
            .execute(
                "INSERT INTO orders (id, amount_cents) VALUES ($1, $2)",
                &[&order_id, &amount_cents],
            )
            .await
            .map_err(KitError::observer("placing an order"))?;
        Ok(())
    }

    pub(crate) async fn observe(
        &self,
        order_id: &str,
        delivered: &[PaymentEvent],
    ) -> Result<Observed, KitError> {
        let doing = || KitError::observer("reading the order, its outbox rows and the records");
        let order = self
            .client
            .query_opt(
                "SELECT status, paid_cents FROM orders WHERE id = $1",
                &[&order_id],
            )
            .await
            .map_err(doing())?;
        let (status, paid_cents) = match order {
            Some(row) => (row.get(0), row.get(1)),
            None => ("(no such order)".to_string(), 0),
        };
        let outbox = self
            .client
            .query(
                "SELECT type, payload->>'caused_by' FROM outbox WHERE aggregate_id = $1 \
                 ORDER BY created_at, payload->>'caused_by'",
                &[&order_id],
            )
            .await
            .map_err(doing())?
            .into_iter()
            .map(|row| Announcement {
                kind: row.get(0),
                caused_by: row.get::<_, Option<String>>(1).unwrap_or_default(),
            })
            .collect();
        let ids: Vec<&str> = delivered.iter().map(PaymentEvent::id).collect();
        let recorded = self
            .client
            .query(
                "SELECT event_id FROM processed_events WHERE event_id = ANY($1) ORDER BY event_id",
                &[&ids],
            )
            .await
            .map_err(doing())?
            .into_iter()
            .map(|row| row.get(0))
            .collect();
        Ok(Observed {
            order_id: order_id.to_string(),
            status,
            paid_cents,
            outbox,
            recorded,
        })
    }
}

impl Observed {
    /// One line for a trace: what the order looks like now.
    pub(crate) fn summary(&self) -> String {
        let outbox = if self.outbox.is_empty() {
            "no outbox row".to_string()
        } else {
            let rows: Vec<String> = self
                .outbox
                .iter()
                .map(|row| format!("{} (caused by {})", row.kind, row.caused_by))
                .collect();
            format!("outbox: {}", rows.join(", "))
        };
        format!(
            "{} is {}, {} cents paid; {outbox}; processed_events holds {}",
            self.order_id,
            self.status,
            self.paid_cents,
            if self.recorded.is_empty() {
                "none of its events".to_string()
            } else {
                self.recorded.join(", ")
            }
        )
    }
}
