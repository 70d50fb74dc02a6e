//! The test's own view of the ledger, through its own session (tokio-postgres), never through
//! the pool the code under test uses.

use kit::{KitError, TestDatabase};

use crate::CreditEvent;

pub struct Ledger {
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
            .map_err(KitError::observer("opening an account"))?;
        Ok(())
    }

    /// What one event did to one account (opened at zero): whether the account exists, its
    /// balance, and how many rows record the event.
    pub(crate) async fn observe(
        &self,
        account: &str,
        event: &CreditEvent,
    ) -> Result<Observed, KitError> {
        let row = self
            .client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1), \
                        COALESCE((SELECT balance_cents FROM accounts WHERE id = $1), 0), \
                        (SELECT count(*) FROM processed_events WHERE event_id = $2)",
                &[&account, &event.id()],
            )
            .await
            .map_err(KitError::observer("reading the balance and the records"))?;
        Ok(Observed {
            opened: row.get(0),
            balance_cents: row.get(1),
            amount_cents: event.amount_cents(),
            records: row.get(2),
        })
    }
}

/// What the test saw in the database after the deliveries.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Observed {
    /// Whether the account exists: a spec's setup may have closed it.
    pub(crate) opened: bool,
    pub(crate) balance_cents: i64,
    pub(crate) amount_cents: i64,
    pub(crate) records: i64,
}

impl Observed {
    /// How many times the event's amount was credited, if the balance is a whole number of them.
    pub(crate) fn credits(&self) -> Option<i64> {
        (self.balance_cents % self.amount_cents == 0)
            .then(|| self.balance_cents / self.amount_cents)
    }
}
