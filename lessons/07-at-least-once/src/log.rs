//! The test's own side of the log: it places orders, appends verdicts as a producer would,
//! and reads back what the consumer left, through its own session (tokio-postgres), never
//! through the pool the code under test uses. And the model: what the orders must look like
//! once every event of the log has been handled exactly once.

use std::collections::{BTreeMap, HashSet};

use kit::{KitError, TestDatabase};

/// What every order costs: instalments add up to it.
pub(crate) const AMOUNT_CENTS: i64 = 3000;

/// One verdict, as the tests append it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    pub(crate) id: String,
    pub(crate) order_id: String,
    pub(crate) amount_cents: i64,
    pub(crate) failed: bool,
}

impl Verdict {
    pub(crate) fn paid(id: &str, order_id: &str, amount_cents: i64) -> Verdict {
        Verdict {
            id: id.into(),
            order_id: order_id.into(),
            amount_cents,
            failed: false,
        }
    }

    pub(crate) fn failed(id: &str, order_id: &str) -> Verdict {
        Verdict {
            id: id.into(),
            order_id: order_id.into(),
            amount_cents: AMOUNT_CENTS,
            failed: true,
        }
    }

    /// As the payment step publishes it, and the log keeps it.
    pub(crate) fn json(&self) -> String {
        let (kind, payload) = if self.failed {
            (
                "payment.failed",
                serde_json::json!({ "order_id": self.order_id, "amount_cents": self.amount_cents,
                                    "reason": "card declined" }),
            )
        } else {
            (
                "payment.succeeded",
                serde_json::json!({ "order_id": self.order_id, "amount_cents": self.amount_cents }),
            )
        };
        serde_json::json!({
            "id": self.id, "type": kind, "aggregate_id": self.order_id, "payload": payload,
            "occurred_at": "2026-07-14T09:15:40Z",
        })
        .to_string()
    }
}

/// An order as the model or the database has it: its status, what was paid, and how many
/// outbox rows announce it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OrderState {
    pub(crate) status: String,
    pub(crate) paid_cents: i64,
    pub(crate) announcements: i64,
}

impl std::fmt::Display for OrderState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}, {} cents paid, {} outbox row(s)",
            self.status, self.paid_cents, self.announcements
        )
    }
}

/// The orders once every verdict of `log` has been handled exactly once, in log order: a
/// verdict id seen before changes nothing, a resolved order changes no more.
pub(crate) fn model(orders: &[String], log: &[Verdict]) -> BTreeMap<String, OrderState> {
    let mut state: BTreeMap<String, OrderState> = (orders.iter())
        .map(|id| {
            let pending = OrderState {
                status: "pending".into(),
                paid_cents: 0,
                announcements: 0,
            };
            (id.clone(), pending)
        })
        .collect();
    let mut seen = HashSet::new();
    for verdict in log {
        if !seen.insert(verdict.id.clone()) {
            continue;
        }
        let order = state
            .get_mut(&verdict.order_id)
            .expect("verdicts name placed orders");
        if order.status != "pending" {
            continue;
        }
        if verdict.failed {
            order.status = "cancelled".into();
        } else {
            order.paid_cents += verdict.amount_cents;
            if order.paid_cents >= AMOUNT_CENTS {
                order.status = "confirmed".into();
            }
        }
        if order.status != "pending" {
            order.announcements = 1;
        }
    }
    state
}

pub struct Log {
    client: tokio_postgres::Client,
}

/// What the consumer left: every order's state, the verdict ids recorded as handled, and the
/// group's committed offset.
#[derive(Debug)]
pub(crate) struct Observed {
    pub(crate) orders: BTreeMap<String, OrderState>,
    pub(crate) recorded: HashSet<String>,
    pub(crate) next_position: i64,
    /// The log's last position (0 when empty).
    pub(crate) last_position: i64,
}

impl Log {
    pub(crate) async fn open(db: &TestDatabase) -> Result<Log, KitError> {
        Ok(Log {
            client: db.session().await?,
        })
    }

    /// The same view on a session opened elsewhere (the soak's producer has its own).
    pub(crate) fn from_client(client: tokio_postgres::Client) -> Log {
        Log { client }
    }

    /// The group's committed offset.
    pub(crate) async fn observe_offset(&self, group: &str) -> Result<i64, KitError> {
        let row = self
            .client
            .query_one(
                "SELECT next_position FROM consumer_offsets WHERE group_id = $1",
                &[&group],
            )
            .await
            .map_err(KitError::observer("reading the group's offset"))?;
        Ok(row.get(0))
    }

    /// The verdicts of the log, in its order, as a spec's setup appended them: what the model
    /// must replay. One the log keeps but the saga cannot read is the spec's mistake.
    pub(crate) async fn appended(&self) -> Result<Vec<Verdict>, KitError> {
        let rows = (self.client)
            .query("SELECT event FROM log ORDER BY position", &[])
            .await
            .map_err(KitError::observer("reading the log back"))?;
        let read = |row: &tokio_postgres::Row| {
            let event = order_saga::PaymentEvent::from_json(row.get(0))
                .unwrap_or_else(|e| panic!("the log holds an event the saga cannot read: {e}"));
            Verdict {
                id: event.id().to_string(),
                order_id: event.order_id().to_string(),
                amount_cents: event.amount_cents(),
                failed: matches!(event.result(), order_saga::PaymentResult::Failed { .. }),
            }
        };
        Ok(rows.iter().map(read).collect())
    }

    /// Places pending orders and registers the consumer groups, at the start of the log.
    pub(crate) async fn set_up(&self, orders: &[String], groups: &[&str]) -> Result<(), KitError> {
        self.client
            .execute(
                "INSERT INTO orders (id, amount_cents) SELECT unnest($1::text[]), $2",
                &[&orders, &AMOUNT_CENTS],
            )
            .await
            .map_err(KitError::observer("placing the orders"))?;
        self.client
            .execute(
                "INSERT INTO consumer_offsets (group_id) SELECT unnest($1::text[])",
                &[&groups],
            )
            .await
            .map_err(KitError::observer("registering the consumer groups"))?;
        Ok(())
    }

    /// Appends verdicts to the log, in order, in one statement: positions follow their order.
    pub(crate) async fn append(&self, verdicts: &[Verdict]) -> Result<(), KitError> {
        let events: Vec<String> = verdicts.iter().map(Verdict::json).collect();
        self.client
            .execute(
                "INSERT INTO log (event)
                 SELECT e FROM unnest($1::text[]) WITH ORDINALITY AS t(e, n) ORDER BY n",
                &[&events],
            )
            .await
            .map_err(KitError::observer("appending to the log"))?;
        Ok(())
    }

    /// Every order's state, and the verdict ids recorded as handled.
    pub(crate) async fn observe_effects(
        &self,
    ) -> Result<(BTreeMap<String, OrderState>, HashSet<String>), KitError> {
        let why = || KitError::observer("reading what the consumer left");
        let rows = self
            .client
            .query(
                "SELECT o.id, o.status, o.paid_cents,
                        (SELECT count(*) FROM outbox x WHERE x.aggregate_id = o.id)
                   FROM orders o",
                &[],
            )
            .await
            .map_err(why())?;
        let orders = (rows.iter())
            .map(|row| {
                let state = OrderState {
                    status: row.get(1),
                    paid_cents: row.get(2),
                    announcements: row.get(3),
                };
                (row.get(0), state)
            })
            .collect();
        let recorded = (self
            .client
            .query("SELECT event_id FROM processed_events", &[]))
        .await
        .map_err(why())?
        .iter()
        .map(|row| row.get(0))
        .collect();
        Ok((orders, recorded))
    }

    pub(crate) async fn observe(&self, group: &str) -> Result<Observed, KitError> {
        let why = || KitError::observer("reading what the consumer left");
        let (orders, recorded) = self.observe_effects().await?;
        let row = self
            .client
            .query_one(
                "SELECT (SELECT next_position FROM consumer_offsets WHERE group_id = $1),
                        (SELECT COALESCE(max(position), 0) FROM log)",
                &[&group],
            )
            .await
            .map_err(why())?;
        Ok(Observed {
            orders,
            recorded,
            next_position: row.get(0),
            last_position: row.get(1),
        })
    }

    /// Registers `group`'s stored offset for each partition of `topic`, at the start (0), as a
    /// service does when it first subscribes a group.
    #[cfg(feature = "kafka")]
    pub(crate) async fn register_partitions(
        &self,
        group: &str,
        topic: &str,
        partitions: i32,
    ) -> Result<(), KitError> {
        self.client
            .execute(
                "INSERT INTO partition_offsets (group_id, topic, partition)
                 SELECT $1, $2, generate_series(0, $3 - 1)",
                &[&group, &topic, &partitions],
            )
            .await
            .map_err(KitError::observer("registering the group's partitions"))?;
        Ok(())
    }

    /// The offset `group` stored with its effects for `partition`, if any.
    #[cfg(feature = "kafka")]
    pub(crate) async fn stored_offset(
        &self,
        group: &str,
        topic: &str,
        partition: i32,
    ) -> Result<Option<i64>, KitError> {
        let row = self
            .client
            .query_opt(
                "SELECT next_offset FROM partition_offsets
                  WHERE group_id = $1 AND topic = $2 AND partition = $3",
                &[&group, &topic, &partition],
            )
            .await
            .map_err(KitError::observer(
                "reading the offset stored with the effects",
            ))?;
        Ok(row.map(|row| row.get(0)))
    }

    /// From now on, every change of a stored offset is written down, by a trigger the test
    /// adds (so that a move back is seen whenever it happens, not only if the test looks
    /// between two commits).
    #[cfg(feature = "kafka")]
    pub(crate) async fn watch_offsets(&self) -> Result<(), KitError> {
        self.client
            .batch_execute(
                "CREATE TABLE workbook_offset_moves (
                     n           BIGINT GENERATED ALWAYS AS IDENTITY,
                     from_offset BIGINT,
                     to_offset   BIGINT);
                 CREATE FUNCTION workbook_note_offset_move() RETURNS trigger
                 LANGUAGE plpgsql AS $$
                 BEGIN
                     INSERT INTO workbook_offset_moves (from_offset, to_offset)
                     VALUES (OLD.next_offset, NEW.next_offset);
                     RETURN NEW;
                 END $$;
                 CREATE TRIGGER workbook_offset_moves AFTER UPDATE ON partition_offsets
                     FOR EACH ROW EXECUTE FUNCTION workbook_note_offset_move();",
            )
            .await
            .map_err(KitError::observer("watching the stored offsets"))?;
        Ok(())
    }

    /// The first move of a stored offset to an earlier one, if any: (from, to).
    #[cfg(feature = "kafka")]
    pub(crate) async fn first_move_back(&self) -> Result<Option<(i64, i64)>, KitError> {
        let row = self
            .client
            .query_opt(
                "SELECT from_offset, to_offset FROM workbook_offset_moves
                  WHERE to_offset < from_offset ORDER BY n LIMIT 1",
                &[],
            )
            .await
            .map_err(KitError::observer("reading how the stored offsets moved"))?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    }
}
