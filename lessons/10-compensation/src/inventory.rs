//! The test's own view of the inventory, through its own session (tokio-postgres), never through
//! the pool the code under test uses.

use kit::{KitError, TestDatabase};

/// What is left on the shelf of every scenario's product once its order's units were reserved:
/// the stock returned by a release is whatever `available` holds above it.
pub(crate) const LEFT_ON_THE_SHELF: i32 = 8;

pub(crate) struct Inventory {
    client: tokio_postgres::Client,
}

/// What the test saw about one order's reservation after the deliveries.
#[derive(Debug, Clone)]
pub(crate) struct Observed {
    pub(crate) order_id: String,
    pub(crate) quantity: i32,
    /// 'held', 'released' or 'consumed'.
    pub(crate) status: String,
    /// Units put back on the shelf since the reservation was made.
    pub(crate) returned: i32,
    /// The outbox's stock.released rows for the order, by event id.
    pub(crate) announced: Vec<String>,
}

impl Inventory {
    pub(crate) async fn open(db: &TestDatabase) -> Result<Inventory, KitError> {
        Ok(Inventory {
            client: db.session().await?,
        })
    }

    /// What the service did when `order_id` was created: `quantity` units of the order's own
    /// product taken off the shelf, and held for it.
    pub(crate) async fn reserve(&self, order_id: &str, quantity: i32) -> Result<(), KitError> {
        let sku = sku_of(order_id);
        self.client
            .execute(
                "INSERT INTO stock (sku, available) VALUES ($1, $2)",
                &[&sku, &LEFT_ON_THE_SHELF],
            )
            .await
            .map_err(KitError::observer("stocking the shelf"))?;
        self.client
            .execute(
                "INSERT INTO reservations (order_id, sku, quantity, status)
                 VALUES ($1, $2, $3, 'held')",
                &[&order_id, &sku, &quantity],
            )
            .await
            .map_err(KitError::observer("reserving the order's units"))?;
        Ok(())
    }

    pub(crate) async fn observe(&self, order_id: &str) -> Result<Observed, KitError> {
        let row = self
            .client
            .query_one(
                "SELECT r.quantity, r.status, s.available
                   FROM reservations r JOIN stock s USING (sku)
                  WHERE r.order_id = $1",
                &[&order_id],
            )
            .await
            .map_err(KitError::observer("reading the reservation and its stock"))?;
        let outbox = self
            .client
            .query(
                "SELECT event_id FROM outbox
                  WHERE aggregate_id = $1 AND type = 'stock.released' ORDER BY id",
                &[&order_id],
            )
            .await
            .map_err(KitError::observer("reading the outbox"))?;
        let mut announced: Vec<String> = outbox.iter().map(|row| row.get(0)).collect();
        // Racing deliveries write in no fixed order: sorted, a trace reads the same every run.
        announced.sort();
        Ok(Observed {
            order_id: order_id.to_string(),
            quantity: row.get(0),
            status: row.get(1),
            returned: row.get::<_, i32>(2) - LEFT_ON_THE_SHELF,
            announced,
        })
    }
}

/// Each order's units are of a product of its own (ord-1's are sku-1), so that one order's
/// stock never counts towards another's.
pub(crate) fn sku_of(order_id: &str) -> String {
    format!("sku-{}", order_id.trim_start_matches("ord-"))
}

impl Observed {
    /// One line for the trace: the reservation's status, the stock returned, the outbox.
    pub(crate) fn summary(&self) -> String {
        format!(
            "{}: {}; {} unit(s) back in stock (of {} reserved); stock.released announced as [{}]",
            self.order_id,
            self.status,
            self.returned,
            self.quantity,
            self.announced.join(", ")
        )
    }
}
