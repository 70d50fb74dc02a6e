//! The test's own view of the payment step and the card network, through its own session
//! (tokio-postgres), never through the pool the code under test uses.

use kit::{KitError, TestDatabase};

pub struct PaymentStep {
    client: tokio_postgres::Client,
}

/// What the test saw about one order after the deliveries.
#[derive(Debug, Clone)]
pub(crate) struct Observed {
    pub(crate) order_id: String,
    /// The card network's charges for the order: (idempotency key, status).
    pub(crate) charges: Vec<(String, String)>,
    /// The step's record: how many payments rows name the order.
    pub(crate) payments: i64,
    /// The event ids the saga heard or will hear about the order, in the order announced:
    /// those published before a restore, then the outbox's.
    pub(crate) announced: Vec<String>,
}

impl PaymentStep {
    pub(crate) async fn open(db: &TestDatabase) -> Result<PaymentStep, KitError> {
        Ok(PaymentStep {
            client: db.session().await?,
        })
    }

    pub(crate) async fn observe(
        &self,
        order_id: &str,
        published: &[String],
    ) -> Result<Observed, KitError> {
        let charges = self
            .client
            .query(
                "SELECT idempotency_key, status FROM card_network.charges
                  WHERE order_id = $1 ORDER BY charged_at, id",
                &[&order_id],
            )
            .await
            .map_err(KitError::observer("reading the card network's charges"))?;
        let payments: i64 = self
            .client
            .query_one(
                "SELECT count(*) FROM payments WHERE order_id = $1",
                &[&order_id],
            )
            .await
            .map_err(KitError::observer("reading the payments"))?
            .get(0);
        let outbox = self
            .client
            .query(
                "SELECT event_id FROM outbox WHERE aggregate_id = $1 ORDER BY seq",
                &[&order_id],
            )
            .await
            .map_err(KitError::observer("reading the outbox"))?;
        let mut announced = published.to_vec();
        announced.extend(outbox.iter().map(|row| row.get::<_, String>(0)));
        Ok(Observed {
            order_id: order_id.to_string(),
            charges: charges.iter().map(|row| (row.get(0), row.get(1))).collect(),
            payments,
            announced,
        })
    }

    /// The step's database restored from a backup taken before the order arrived: its record
    /// and its outbox are gone, the card network (another company's) remembers its charges,
    /// and the saga has already heard what the relay published. Returns those event ids.
    pub(crate) async fn restore_from_backup(
        &self,
        order_id: &str,
    ) -> Result<Vec<String>, KitError> {
        let published = self.observe(order_id, &[]).await?.announced;
        self.client
            .batch_execute("TRUNCATE payments, outbox")
            .await
            .map_err(KitError::observer("restoring the step's tables"))?;
        Ok(published)
    }
}

impl Observed {
    /// The distinct announced ids, in the order first seen.
    pub(crate) fn distinct_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for id in &self.announced {
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
        ids
    }

    /// One line for the trace: what the network, the record and the outbox hold. The ids
    /// announced are listed in the order of the charges whose keys they match (racing
    /// deliveries announce in no fixed order), so that a trace reads the same every run.
    pub(crate) fn summary(&self) -> String {
        let charged_at = |id: &String| {
            (self.charges.iter())
                .position(|(key, _)| key == id)
                .unwrap_or(usize::MAX)
        };
        let mut announced = self.announced.clone();
        announced.sort_by(|a, b| (charged_at(a), a).cmp(&(charged_at(b), b)));
        let charges: Vec<String> = (self.charges.iter())
            .map(|(key, status)| format!("{status} under {key}"))
            .collect();
        format!(
            "{}: {} charge(s) at the network{}; {} payments row(s); announced as [{}]",
            self.order_id,
            self.charges.len(),
            if charges.is_empty() {
                String::new()
            } else {
                format!(" ({})", charges.join(", "))
            },
            self.payments,
            announced.join(", ")
        )
    }
}
