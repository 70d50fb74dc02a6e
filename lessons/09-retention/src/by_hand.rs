//! `cargo workbook deliver 09`: credits and prunes as JSON lines, against the development
//! database, with the clock in your hands.
//!
//! Two kinds of line:
//! - a credit, delivered through the given handler at `received_at`:
//!   `{"id": "evt-1", "account": "acc-1", "amount_cents": 500, "occurred_at":
//!   "2026-03-02T09:00:00Z", "received_at": "2026-03-02T09:00:05Z"}`;
//! - a run of the crate's prune at `prune_at`: `{"prune_at": "2026-03-06T09:00:00Z"}`.
//!
//! Each line reports what processed_events and the credits then hold, so that a copy applied
//! again after a prune, or after midnight, shows at once.

use std::process::ExitCode;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use sqlx::PgPool;

use crate::{Credit, Delivered, Handler, Prune, Subject, handle};

/// One line: a credit received at a time, or a prune run at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Credit(Delivered),
    Prune(Prune),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreditLine {
    id: String,
    account: String,
    amount_cents: i64,
    occurred_at: String,
    received_at: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PruneLine {
    prune_at: String,
}

const EXAMPLES: &str = "expected a credit like {\"id\": \"evt-1\", \"account\": \"acc-1\", \
     \"amount_cents\": 500, \"occurred_at\": \"2026-03-02T09:00:00Z\", \"received_at\": \
     \"2026-03-02T09:00:05Z\"} or a prune like {\"prune_at\": \"2026-03-06T09:00:00Z\"}";

impl Line {
    /// Reads one line, or says what is wrong with it.
    pub fn from_json(line: &str) -> Result<Line, String> {
        let value: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("it is not valid JSON ({e}); {EXAMPLES}"))?;
        if value.get("prune_at").is_some() {
            let prune: PruneLine = serde_json::from_value(value)
                .map_err(|e| format!("it is not a prune ({e}); {EXAMPLES}"))?;
            return Ok(Line::Prune(Prune::at(time("prune_at", &prune.prune_at)?)));
        }
        let credit: CreditLine = serde_json::from_value(value)
            .map_err(|e| format!("it is not a credit ({e}); {EXAMPLES}"))?;
        kit::envelope::check_typed_ids(
            "the line's",
            "credit",
            [("id", &credit.id), ("account", &credit.account)],
        )?;
        if credit.amount_cents <= 0 {
            return Err(format!(
                "the line's amount_cents is {}; a credit's amount must be positive",
                credit.amount_cents
            ));
        }
        Ok(Line::Credit(Delivered {
            event: Credit {
                id: credit.id,
                account: credit.account,
                amount_cents: credit.amount_cents,
                occurred_at: time("occurred_at", &credit.occurred_at)?,
            },
            received_at: time("received_at", &credit.received_at)?,
        }))
    }
}

/// An RFC 3339 time, such as 2026-03-02T09:00:00Z.
fn time(field: &str, value: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(value)
        .map(|at| at.with_timezone(&Utc))
        .map_err(|e| {
            format!(
                "the line's {field} {value:?} is not an RFC 3339 time ({e}); write it like \
                 2026-03-02T09:00:00Z"
            )
        })
}

/// Lesson 09's lines: credits to the given handler, prunes to the crate's.
pub struct RetentionFeed<H> {
    prune: H,
}

impl<H: Handler> kit::deliver::Feed for RetentionFeed<H> {
    type Event = Line;

    fn parse(&self, line: &str) -> Result<Line, String> {
        Line::from_json(line)
    }

    async fn deliver(&self, pool: &PgPool, line: Line) -> Result<String, String> {
        let describe = |e: sqlx::Error| kit::describe_sqlx(&e);
        match line {
            Line::Credit(delivered) => {
                let outcome = handle(pool, &delivered).await.map_err(describe)?;
                let after = credit_after(pool, &delivered.event.id)
                    .await
                    .unwrap_or_else(|e| format!("(the ledger could not be read back: {e})"));
                Ok(format!(
                    "{} received at {}: {outcome:?}. {after}",
                    delivered.event.id,
                    delivered.received_at.to_rfc3339()
                ))
            }
            Line::Prune(prune) => {
                let pruned = (self.prune.call(pool.clone(), prune).await).map_err(describe)?;
                let left: i64 = sqlx::query_scalar("SELECT count(*) FROM processed_events")
                    .fetch_one(pool)
                    .await
                    .map_err(describe)?;
                Ok(format!(
                    "prune at {}: {} row(s) deleted; processed_events now holds {left} row(s)",
                    prune.now().to_rfc3339(),
                    pruned.rows
                ))
            }
        }
    }
}

/// The event's rows in processed_events and its credits, in a line.
async fn credit_after(pool: &PgPool, event_id: &str) -> Result<String, String> {
    let describe = |e: sqlx::Error| kit::describe_sqlx(&e);
    let rows: Vec<String> = sqlx::query_scalar(
        "SELECT format('received_on %s, occurred_on %s', received_on, occurred_on)
           FROM processed_events WHERE event_id = $1 ORDER BY received_at",
    )
    .bind(event_id)
    .fetch_all(pool)
    .await
    .map_err(describe)?;
    let credits: i64 = sqlx::query_scalar("SELECT count(*) FROM credits WHERE event_id = $1")
        .bind(event_id)
        .fetch_one(pool)
        .await
        .map_err(describe)?;
    let rows = if rows.is_empty() {
        "none".to_string()
    } else {
        rows.join("; ")
    };
    Ok(format!(
        "processed_events rows for {event_id}: {rows}; credits applied: {credits}"
    ))
}

/// The `deliver` binary of lesson 09's exercise and solution.
pub fn main<H: Handler>(subject: Subject<H>) -> ExitCode {
    kit::deliver::main(
        RetentionFeed {
            prune: subject.handler,
        },
        subject.schema,
    )
}

#[cfg(test)]
mod tests {
    use kit::deliver::Feed;

    use super::*;
    use crate::Pruned;

    const CREDIT: &str = r#"{"id":"evt-1","account":"acc-1","amount_cents":500,"occurred_at":"2026-03-02T09:00:00Z","received_at":"2026-03-02T09:00:05Z"}"#;

    fn parse(line: &str) -> Result<Line, String> {
        let feed = RetentionFeed {
            prune: |_: PgPool, _: Prune| async { Ok(Pruned { rows: 0 }) },
        };
        feed.parse(line)
    }

    #[test]
    fn a_credit_and_a_prune_are_read() {
        match Line::from_json(CREDIT) {
            Ok(Line::Credit(delivered)) => assert_eq!(delivered.event.id, "evt-1"),
            other => panic!("{other:?}"),
        }
        match Line::from_json(r#"{"prune_at": "2026-03-06T09:00:00+01:00"}"#) {
            Ok(Line::Prune(prune)) => {
                assert_eq!(prune.now().to_rfc3339(), "2026-03-06T08:00:00+00:00")
            }
            other => panic!("{other:?}"),
        }
    }

    /// Every way a line can be wrong gets a sentence that names the problem.
    #[test]
    fn each_bad_line_is_refused_with_its_problem() {
        let long_id = "x".repeat(201);
        let cases: Vec<(String, &str)> = vec![
            ("{\"id\": \"evt-1\",".into(), "not valid JSON"),
            ("[1, 2]".into(), "not a credit"),
            (CREDIT.replace(r#""id":"evt-1","#, ""), "missing field `id`"),
            (
                CREDIT.replace(r#""id":"evt-1""#, r#""id":"""#),
                "id is empty",
            ),
            (CREDIT.replace("evt-1", &long_id), "201 bytes long"),
            (
                CREDIT.replace(r#""account":"acc-1""#, r#""account":" ""#),
                "account is empty",
            ),
            (
                CREDIT.replace("500", r#""500""#),
                "invalid type: string \"500\"",
            ),
            (CREDIT.replace("500", "-5"), "must be positive"),
            (
                CREDIT.replace("2026-03-02T09:00:05Z", "yesterday"),
                "received_at \"yesterday\" is not an RFC 3339 time",
            ),
            (
                CREDIT.replace(r#""occurred_at":"2026-03-02T09:00:00Z","#, ""),
                "missing field `occurred_at`",
            ),
            (
                CREDIT.replace("}", r#","currency":"EUR"}"#),
                "unknown field `currency`",
            ),
            (
                r#"{"prune_at": "soon"}"#.into(),
                "prune_at \"soon\" is not an RFC 3339",
            ),
            (
                r#"{"prune_at": "2026-03-06T09:00:00Z", "batch": 5}"#.into(),
                "not a prune (unknown field `batch`",
            ),
        ];
        kit::deliver::assert_each_refused(cases, parse);
    }
}
