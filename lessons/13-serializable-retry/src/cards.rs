//! The test's own view of the issuer's tables: a customer and its cards set up before the
//! deliveries, a count of the attempts each delivery made (and failures injected into them),
//! and what the deliveries left.

use kit::{KitError, TestDatabase};

/// The shared limit every scenario's customer has, in cents.
pub const LIMIT: i64 = 10_000;

/// How the test sees attempts without trusting the handler's count: a trigger on the tables an
/// authorization writes its event's id to. The first such row a transaction inserts for an
/// event draws from that event's sequence, which a rollback does not give back; and while the
/// sequence is within the event's `fail_first`, the insert fails with `fail_with` (40001 or
/// 40P01), as a conflict with a transaction nobody sees would make it fail.
const PROBES: &str = r#"
CREATE TABLE attempt_probes (
    event_id   TEXT PRIMARY KEY,
    counter    REGCLASS NOT NULL,
    fail_first BIGINT NOT NULL,
    fail_with  TEXT NOT NULL
);
CREATE FUNCTION count_attempt() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    probe attempt_probes;
    n     BIGINT;
BEGIN
    -- Once per transaction and event, whichever of the two tables it writes first.
    IF current_setting('workbook.attempt_of', true) IS NOT DISTINCT FROM NEW.event_id THEN
        RETURN NEW;
    END IF;
    PERFORM set_config('workbook.attempt_of', NEW.event_id, true);
    SELECT * INTO probe FROM attempt_probes WHERE event_id = NEW.event_id;
    IF FOUND THEN
        n := nextval(probe.counter);
        IF n <= probe.fail_first THEN
            RAISE EXCEPTION '% (injected by the test into attempt % of %)',
                CASE probe.fail_with WHEN '40P01' THEN 'deadlock detected'
                                     ELSE 'could not serialize access' END,
                n, NEW.event_id USING ERRCODE = probe.fail_with;
        END IF;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER count_attempt BEFORE INSERT ON processed_events
    FOR EACH ROW EXECUTE FUNCTION count_attempt();
CREATE TRIGGER count_attempt BEFORE INSERT ON authorizations
    FOR EACH ROW EXECUTE FUNCTION count_attempt();
"#;

/// The test's session on the issuer's database.
pub struct Cards {
    session: tokio_postgres::Client,
    probes: usize,
}

/// What the deliveries left for the scenario's customer.
#[derive(Debug, Clone)]
pub struct Observed {
    pub customer_id: String,
    pub limit: i64,
    /// Each card's spending, by card.
    pub spent: Vec<(String, i64)>,
    /// Each recorded decision: event, card, amount, decision.
    pub decisions: Vec<(String, String, i64, String)>,
}

impl Observed {
    pub fn total_spent(&self) -> i64 {
        self.spent.iter().map(|(_, cents)| cents).sum()
    }

    pub fn decision_of(&self, event: &str) -> Option<&str> {
        (self.decisions.iter())
            .find(|(id, ..)| id == event)
            .map(|(.., decision)| decision.as_str())
    }

    /// One line for a trace or a message.
    pub fn summary(&self) -> String {
        let spent: Vec<String> = (self.spent.iter())
            .map(|(card, cents)| format!("{card} {cents}"))
            .collect();
        let decisions: Vec<String> = (self.decisions.iter())
            .map(|(event, card, cents, decision)| format!("{event} {decision} ({card} {cents})"))
            .collect();
        format!(
            "{} spent {} of {} ({}); decisions: {}",
            self.customer_id,
            self.total_spent(),
            self.limit,
            spent.join(", "),
            if decisions.is_empty() {
                "none".to_string()
            } else {
                decisions.join(", ")
            }
        )
    }
}

impl Cards {
    /// Opens the test's session, and installs the attempt probes.
    pub async fn open(db: &TestDatabase) -> Result<Cards, KitError> {
        let session = db.session().await?;
        (session.batch_execute(PROBES).await)
            .map_err(KitError::observer("install the attempt probes"))?;
        Ok(Cards { session, probes: 0 })
    }

    /// `customer_id` with the shared [`LIMIT`], and `cards` of its own, nothing spent.
    pub async fn customer(&self, customer_id: &str, cards: &[&str]) -> Result<(), KitError> {
        (self.session)
            .execute(
                "INSERT INTO customers (id, limit_cents) VALUES ($1, $2)",
                &[&customer_id, &LIMIT],
            )
            .await
            .map_err(KitError::observer("create the customer"))?;
        for card in cards {
            (self.session)
                .execute(
                    "INSERT INTO cards (id, customer_id) VALUES ($1, $2)",
                    &[card, &customer_id],
                )
                .await
                .map_err(KitError::observer("create a card"))?;
        }
        Ok(())
    }

    /// Counts the attempts made for `event`, failing none: a spec's setup sets `fail_first`
    /// and `fail_with` of its row to inject conflicts (`specs/injected.spec`).
    pub async fn count_attempts(&mut self, event: &str) -> Result<(), KitError> {
        self.probes += 1;
        let counter = format!("attempts_{}", self.probes);
        (self.session)
            .batch_execute(&format!("CREATE SEQUENCE {counter}"))
            .await
            .map_err(KitError::observer("create an attempt counter"))?;
        (self.session)
            .execute(
                "INSERT INTO attempt_probes VALUES ($1, $2::text::regclass, 0, '40001')",
                &[&event, &counter],
            )
            .await
            .map_err(KitError::observer("probe an event's attempts"))?;
        Ok(())
    }

    /// The events whose first `most` attempts, and more, the database is set to fail: no
    /// bounded retry outlasts them.
    pub async fn failed_beyond(&self, most: u64) -> Result<Vec<String>, KitError> {
        let rows = (self.session)
            .query(
                "SELECT event_id FROM attempt_probes WHERE fail_first > $1",
                &[&(most as i64)],
            )
            .await
            .map_err(KitError::observer("read the attempt probes"))?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    /// How many attempts the database saw for `event` (one it never probed: 0).
    pub async fn attempts(&self, event: &str) -> Result<u64, KitError> {
        let row = (self.session)
            .query_opt(
                "SELECT counter::text FROM attempt_probes WHERE event_id = $1",
                &[&event],
            )
            .await
            .map_err(KitError::observer("read an attempt counter"))?;
        let Some(row) = row else { return Ok(0) };
        let counter: String = row.get(0);
        let row = (self.session)
            .query_one(
                &format!("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM {counter}"),
                &[],
            )
            .await
            .map_err(KitError::observer("read an attempt counter"))?;
        Ok(row.get::<_, i64>(0) as u64)
    }

    pub async fn observe(&self, customer_id: &str) -> Result<Observed, KitError> {
        let limit: i64 = (self.session)
            .query_one(
                "SELECT limit_cents FROM customers WHERE id = $1",
                &[&customer_id],
            )
            .await
            .map_err(KitError::observer("read the customer"))?
            .get(0);
        let spent = (self.session)
            .query(
                "SELECT id, spent_cents FROM cards WHERE customer_id = $1 ORDER BY id",
                &[&customer_id],
            )
            .await
            .map_err(KitError::observer("read the cards"))?
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect();
        let decisions = (self.session)
            .query(
                "SELECT event_id, card_id, amount_cents, decision FROM authorizations \
                  WHERE customer_id = $1 ORDER BY event_id",
                &[&customer_id],
            )
            .await
            .map_err(KitError::observer("read the decisions"))?
            .iter()
            .map(|row| (row.get(0), row.get(1), row.get(2), row.get(3)))
            .collect();
        Ok(Observed {
            customer_id: customer_id.to_string(),
            limit,
            spent,
            decisions,
        })
    }
}
