//! The test's own view of the payments, through its own session (tokio-postgres), never through
//! the pool the code under test uses. It reads only the lesson's base schema: the keys table is
//! the student's, and its shape is theirs to choose, but for the two names the keys' expiry job
//! relies on (`idempotency_keys`, `created_at`; see expiry.rs).

use kit::{KitError, TestDatabase};

pub struct Payments {
    client: tokio_postgres::Client,
}

/// One payment, as the test reads it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PaymentRow {
    /// As the API shows it: `pay_17`.
    pub(crate) id: String,
    pub(crate) amount_cents: i64,
    pub(crate) currency: String,
    pub(crate) description: Option<String>,
    pub(crate) status: String,
}

impl Payments {
    /// The test's session, with the scenarios' two clients already known to the API (and
    /// nothing charged to either), so that a script can lock a client's row.
    pub(crate) async fn open(db: &TestDatabase) -> Result<Payments, KitError> {
        let client = db.session().await?;
        client
            .execute("INSERT INTO clients (id) VALUES ('acme'), ('globex')", &[])
            .await
            .map_err(KitError::observer("adding the scenarios' clients"))?;
        Ok(Payments { client })
    }

    /// Makes `clients` known to the API, as acme and globex are from the start (nothing charged
    /// to a new one), so that a spec's script can lock any of its clients' rows.
    pub(crate) async fn know(&self, clients: &[&str]) -> Result<(), KitError> {
        (self.client)
            .execute(
                "INSERT INTO clients (id) SELECT unnest($1::text[]) ON CONFLICT (id) DO NOTHING",
                &[&clients],
            )
            .await
            .map_err(KitError::observer("adding the spec's clients"))?;
        Ok(())
    }

    /// Every payment `client` has, oldest first. Each scenario's client sends one key's
    /// requests (and the neighbours' scenario, one key per client), so these are that key's.
    pub(crate) async fn of(&self, client: &str) -> Result<Vec<PaymentRow>, KitError> {
        let rows = (self.client)
            .query(
                "SELECT id, amount_cents, status, currency, description FROM payments \
                  WHERE client_id = $1 ORDER BY id",
                &[&client],
            )
            .await
            .map_err(KitError::observer("reading the client's payments"))?;
        Ok(rows
            .iter()
            .map(|row| PaymentRow {
                id: format!("pay_{}", row.get::<_, i64>(0)),
                amount_cents: row.get(1),
                currency: row.get(3),
                description: row.get(4),
                status: row.get(2),
            })
            .collect())
    }

    /// The id of every payment, any client's, as the API shows it.
    pub(crate) async fn ids(&self) -> Result<Vec<String>, KitError> {
        let rows = (self.client)
            .query("SELECT id FROM payments ORDER BY id", &[])
            .await
            .map_err(KitError::observer("reading the payments' ids"))?;
        Ok(rows
            .iter()
            .map(|row| format!("pay_{}", row.get::<_, i64>(0)))
            .collect())
    }

    /// The back office refunds every payment of `client`: the payment changes after the
    /// response that created it was sent.
    pub(crate) async fn refund(&self, client: &str) -> Result<(), KitError> {
        (self.client)
            .execute(
                "UPDATE payments SET status = 'refunded' WHERE client_id = $1",
                &[&client],
            )
            .await
            .map_err(KitError::observer("refunding the client's payments"))?;
        Ok(())
    }
}

/// What a trace notes once the requests are over: `acme has 1 payment: pay_1 (1500, succeeded)`.
pub(crate) fn summary(client: &str, payments: &[PaymentRow]) -> String {
    let each: Vec<String> = (payments.iter())
        .map(|p| format!("{} ({}, {})", p.id, p.amount_cents, p.status))
        .collect();
    match each.len() {
        0 => format!("{client} has no payment"),
        n => format!("{client} has {n} payment(s): {}", each.join(", ")),
    }
}
