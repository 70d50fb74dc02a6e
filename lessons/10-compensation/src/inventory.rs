//! The test's own view of the inventory, through its own session (tokio-postgres), never through
//! the pool the code under test uses.

use kit::{KitError, TestDatabase};

/// What is left on the shelf of every scenario's product once its order's units were reserved:
/// the stock returned by a release is whatever `available` holds above it.
pub(crate) const LEFT_ON_THE_SHELF: i32 = 8;

pub struct Inventory {
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
    /// The distinct event ids stock.released was announced under for the order: published
    /// before a restore, or in the outbox.
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

    /// The order's product on the shelf, `units` of it, and no reservation yet: the order was
    /// created, and the inventory has not heard of it.
    pub(crate) async fn stock_only(&self, order_id: &str, units: i32) -> Result<(), KitError> {
        self.client
            .execute(
                "INSERT INTO stock (sku, available) VALUES ($1, $2)",
                &[&sku_of(order_id), &units],
            )
            .await
            .map_err(KitError::observer("stocking the shelf"))?;
        Ok(())
    }

    /// What the order's row says, if it has one, and what is on its product's shelf: for an
    /// order whose release may have come before its reservation, so that the row, if any, may
    /// hold no units.
    pub(crate) async fn observe_row(&self, order_id: &str) -> Result<OrderRow, KitError> {
        let row = self
            .client
            .query_opt(
                "SELECT status, quantity FROM reservations WHERE order_id = $1",
                &[&order_id],
            )
            .await
            .map_err(KitError::observer("reading the order's row"))?;
        let available = self
            .client
            .query_one(
                "SELECT available FROM stock WHERE sku = $1",
                &[&sku_of(order_id)],
            )
            .await
            .map_err(KitError::observer("reading the stock"))?;
        let announced = self
            .client
            .query(
                "SELECT event_id FROM outbox
                  WHERE aggregate_id = $1 AND type = 'stock.released' ORDER BY id",
                &[&order_id],
            )
            .await
            .map_err(KitError::observer("reading the outbox"))?;
        Ok(OrderRow {
            order_id: order_id.to_string(),
            status: row.as_ref().map(|row| row.get(0)),
            quantity: row.and_then(|row| row.get(1)),
            available: available.get(0),
            announced: announced.iter().map(|row| row.get(0)).collect(),
        })
    }

    /// The key of a row that holds nothing and is released, under some other key than
    /// `order_id`'s (a tombstone, as a release leaves one for an order it found no row of):
    /// where a release that keyed it by something else than the order left it.
    pub(crate) async fn tombstone_elsewhere(
        &self,
        order_id: &str,
    ) -> Result<Option<String>, KitError> {
        let row = self
            .client
            .query_opt(
                "SELECT order_id FROM reservations
                  WHERE order_id <> $1 AND sku IS NULL AND status = 'released'
                  ORDER BY order_id LIMIT 1",
                &[&order_id],
            )
            .await
            .map_err(KitError::observer("reading the reservations"))?;
        Ok(row.map(|row| row.get(0)))
    }

    /// What the deliveries left, with the ids `published` (by the relay, before a restore)
    /// counted as announced: downstream consumers heard them whatever the tables say now.
    pub(crate) async fn observe(
        &self,
        order_id: &str,
        published: &[String],
    ) -> Result<Observed, KitError> {
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
        let mut announced: Vec<String> = published.to_vec();
        announced.extend(outbox.iter().map(|row| row.get::<_, String>(0)));
        // One id heard twice is one release to its consumers, which deduplicate on it. Racing
        // deliveries write in no fixed order: sorted, a trace reads the same every run.
        announced.sort();
        announced.dedup();
        Ok(Observed {
            order_id: order_id.to_string(),
            quantity: row.get(0),
            status: row.get(1),
            returned: row.get::<_, i32>(2) - LEFT_ON_THE_SHELF,
            announced,
        })
    }

    /// The inventory's database restored from a backup taken before `order_id`'s reservation
    /// was settled: the reservation is held again, its units off the shelf again, and the
    /// record of handled events and the outbox are as they were then (empty). Downstream, the
    /// rest of the saga has already heard what the relay published: returns those event ids.
    pub(crate) async fn restore_from_backup(
        &self,
        order_id: &str,
    ) -> Result<Vec<String>, KitError> {
        let published = self.observe(order_id, &[]).await?.announced;
        self.client
            .execute(
                "UPDATE stock SET available = $2 WHERE sku = $1",
                &[&sku_of(order_id), &LEFT_ON_THE_SHELF],
            )
            .await
            .map_err(KitError::observer("restoring the stock"))?;
        self.client
            .execute(
                "UPDATE reservations SET status = 'held' WHERE order_id = $1",
                &[&order_id],
            )
            .await
            .map_err(KitError::observer("restoring the reservation"))?;
        self.client
            .batch_execute("TRUNCATE processed_events, outbox")
            .await
            .map_err(KitError::observer("restoring the record and the outbox"))?;
        Ok(published)
    }
}

/// Each order's units are of a product of its own (ord-1's are sku-1), so that one order's
/// stock never counts towards another's.
pub(crate) fn sku_of(order_id: &str) -> String {
    format!("sku-{}", order_id.trim_start_matches("ord-"))
}

/// What an order's row and shelf show, where the row may have held no units.
#[derive(Debug, Clone)]
pub(crate) struct OrderRow {
    pub(crate) order_id: String,
    /// None: the order has no row at all.
    pub(crate) status: Option<String>,
    /// None: the row holds no units (or there is no row).
    pub(crate) quantity: Option<i32>,
    pub(crate) available: i32,
    /// Every stock.released in the outbox for the order.
    pub(crate) announced: Vec<String>,
}

impl OrderRow {
    /// One line for a message or a trace.
    pub(crate) fn summary(&self) -> String {
        let row = match (&self.status, self.quantity) {
            (None, _) => "no row".to_string(),
            (Some(status), Some(quantity)) => format!("{status}, {quantity} unit(s) reserved"),
            (Some(status), None) => format!("{status}, no units reserved"),
        };
        format!(
            "{}: {row}; {} unit(s) on the shelf; stock.released announced as [{}]",
            self.order_id,
            self.available,
            self.announced.join(", ")
        )
    }
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
