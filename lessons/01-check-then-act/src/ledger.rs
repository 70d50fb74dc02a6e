//! The test's own view of the ledger, through its own session (tokio-postgres), never through
//! the pool the code under test uses.

use kit::{KitError, TestDatabase};

pub(crate) struct Ledger {
    client: tokio_postgres::Client,
}

impl Ledger {
    pub(crate) async fn open(db: &TestDatabase) -> Result<Ledger, KitError> {
        Ok(Ledger {
            client: db.session().await?,
        })
    }

    pub(crate) async fn open_account(&self, account: &str) -> Result<(), KitError> {
        self.client
            .execute(
                "INSERT INTO accounts (id, balance_cents) VALUES ($1, 0)",
                &[&account],
            )
            .await
            .map_err(observing("opening an account"))?;
        Ok(())
    }

    /// How many times `amount_cents` was credited to an account opened at zero.
    pub(crate) async fn credits(&self, account: &str, amount_cents: i64) -> Result<i64, KitError> {
        let row = self
            .client
            .query_one(
                "SELECT balance_cents FROM accounts WHERE id = $1",
                &[&account],
            )
            .await
            .map_err(observing("reading a balance"))?;
        Ok(row.get::<_, i64>(0) / amount_cents)
    }

    /// How many rows processed_events holds for `event_id`.
    pub(crate) async fn records(&self, event_id: &str) -> Result<i64, KitError> {
        let row = self
            .client
            .query_one(
                "SELECT count(*) FROM processed_events WHERE event_id = $1",
                &[&event_id],
            )
            .await
            .map_err(observing("counting processed_events"))?;
        Ok(row.get(0))
    }
}

fn observing(doing: &'static str) -> impl FnOnce(tokio_postgres::Error) -> KitError {
    move |source| KitError::Observer {
        doing: doing.into(),
        source,
    }
}
