//! `cargo workbook deliver 01`: lesson 01's events as JSON lines, through the lesson's handler,
//! against the development database.
//!
//! Two kinds of line. A credit (`{"id": "evt-1", "account": "acc-1", "amount_cents": 100}`)
//! goes to the handler, exactly as the tests deliver it. An `account.opened`
//! (`{"type": "account.opened", "account": "acc-1"}`) sets the stage: an account keyed on its
//! id, so opening it again changes nothing.

use std::process::ExitCode;

use serde::Deserialize;
use serde_json::Value;
use sqlx::PgPool;

use crate::{CreditEvent, Handler, Subject};

/// One line of input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerEvent {
    AccountOpened { account: String },
    Credit(CreditEvent),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AccountOpenedWire {
    #[serde(rename = "type")]
    _kind: String,
    account: String,
}

impl LedgerEvent {
    /// Reads one line, or says what is wrong with it.
    pub fn from_json(line: &str) -> Result<LedgerEvent, String> {
        let value: Value =
            serde_json::from_str(line).map_err(|e| format!("it is not valid JSON ({e})"))?;
        let Some(object) = value.as_object() else {
            return Err("it is JSON, but not an object: each line is one event, {…}".into());
        };
        match object.get("type") {
            None => CreditEvent::from_json(line)
                .map(LedgerEvent::Credit)
                .map_err(|e| e.to_string()),
            Some(Value::String(kind)) if kind == "account.opened" => {
                let wire: AccountOpenedWire = serde_json::from_str(line).map_err(|e| {
                    format!(
                        "it is not an account.opened line ({e}); expected {{\"type\": \
                         \"account.opened\", \"account\": \"acc-1\"}}"
                    )
                })?;
                if wire.account.trim().is_empty() {
                    return Err("the line's account is empty; an account needs an id".into());
                }
                if wire.account.len() > kit::MAX_ID_BYTES {
                    return Err(format!(
                        "the line's account is {} bytes long; the workbook takes ids of at most \
                         {} bytes",
                        wire.account.len(),
                        kit::MAX_ID_BYTES
                    ));
                }
                Ok(LedgerEvent::AccountOpened {
                    account: wire.account,
                })
            }
            Some(other) => Err(format!(
                "the line's type is {other}; lesson 01 takes credits (no type) and \
                 \"account.opened\""
            )),
        }
    }
}

/// Lesson 01's lines, handed to its handler.
pub struct LedgerFeed<H> {
    handler: H,
}

impl<H> LedgerFeed<H> {
    pub fn new(handler: H) -> Self {
        LedgerFeed { handler }
    }
}

impl<H: Handler> kit::deliver::Feed for LedgerFeed<H> {
    type Event = LedgerEvent;

    fn parse(&self, line: &str) -> Result<LedgerEvent, String> {
        LedgerEvent::from_json(line)
    }

    async fn deliver(&self, pool: &PgPool, event: LedgerEvent) -> Result<String, String> {
        let describe = |e: sqlx::Error| kit::describe_sqlx(&e);
        match event {
            LedgerEvent::AccountOpened { account } => {
                let opened = sqlx::query(
                    "INSERT INTO accounts (id) VALUES ($1) ON CONFLICT (id) DO NOTHING",
                )
                .bind(&account)
                .execute(pool)
                .await
                .map_err(describe)?;
                Ok(if opened.rows_affected() == 1 {
                    format!("account.opened {account}: a new account, balance 0")
                } else {
                    format!("account.opened {account}: the account exists already, nothing changed")
                })
            }
            LedgerEvent::Credit(event) => {
                let outcome = match self.handler.call(pool.clone(), event.clone()).await {
                    Ok(outcome) => outcome,
                    Err(error) => {
                        let about = kit::deliver::Subject {
                            table: "accounts",
                            noun: "account",
                            id: event.account(),
                            advice: format!(
                                "open it first with a line {{\"type\": \"account.opened\", \
                                 \"account\": {:?}}}",
                                event.account()
                            ),
                        };
                        return Err(kit::deliver::handler_failed(pool, error, about).await);
                    }
                };
                // The delivery happened; a report that cannot be read says so, and is not the
                // handler's failure.
                let after = account_after(pool, &event)
                    .await
                    .unwrap_or_else(|e| format!("(the account could not be read back: {e})"));
                Ok(format!(
                    "credit {} (+{} to {}): {outcome:?}. {after}",
                    event.id(),
                    event.amount_cents(),
                    event.account()
                ))
            }
        }
    }
}

/// The account and the event's records after a delivery, read in a line.
async fn account_after(pool: &PgPool, event: &CreditEvent) -> Result<String, String> {
    let describe = |e: sqlx::Error| kit::describe_sqlx(&e);
    let balance: Option<i64> =
        sqlx::query_scalar("SELECT balance_cents FROM accounts WHERE id = $1")
            .bind(event.account())
            .fetch_optional(pool)
            .await
            .map_err(describe)?;
    let records: i64 =
        sqlx::query_scalar("SELECT count(*) FROM processed_events WHERE event_id = $1")
            .bind(event.id())
            .fetch_one(pool)
            .await
            .map_err(describe)?;
    let balance = balance.map_or("no such account".into(), |b| format!("balance {b}"));
    Ok(format!(
        "{}: {balance}; {records} processed_events row(s) for {}",
        event.account(),
        event.id()
    ))
}

/// The `deliver` binary of lesson 01's exercise and solution.
pub fn main<H: Handler>(subject: Subject<H>) -> ExitCode {
    kit::deliver::main(
        LedgerFeed {
            handler: subject.handler,
        },
        subject.schema,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credits_and_accounts_parse_and_bad_lines_say_why() {
        assert_eq!(
            LedgerEvent::from_json(r#"{"type":"account.opened","account":"acc-1"}"#),
            Ok(LedgerEvent::AccountOpened {
                account: "acc-1".into()
            })
        );
        assert!(matches!(
            LedgerEvent::from_json(r#"{"id":"evt-1","account":"acc-1","amount_cents":100}"#),
            Ok(LedgerEvent::Credit(_))
        ));
        let long = "x".repeat(201);
        for (line, problem) in [
            ("evt-1".to_string(), "not valid JSON"),
            ("\"evt-1\"".to_string(), "not an object"),
            (
                r#"{"id":"evt-1","account":"acc-1"}"#.to_string(),
                "missing field `amount_cents`",
            ),
            (
                r#"{"id":"","account":"acc-1","amount_cents":1}"#.to_string(),
                "id is empty",
            ),
            (
                format!(r#"{{"id":"{long}","account":"acc-1","amount_cents":1}}"#),
                "201 bytes long",
            ),
            (
                r#"{"id":"e","account":"acc-1","amount_cents":"1"}"#.to_string(),
                "invalid type: string",
            ),
            (
                r#"{"type":"account.closed","account":"acc-1"}"#.to_string(),
                "\"account.closed\"",
            ),
            (
                r#"{"type":"account.opened","account":" "}"#.to_string(),
                "account is empty",
            ),
            (
                format!(r#"{{"type":"account.opened","account":"{long}"}}"#),
                "201 bytes long",
            ),
            (
                r#"{"account":"acc-1","amount_cents":1}"#.to_string(),
                "missing field `id`",
            ),
        ] {
            let message = LedgerEvent::from_json(&line).expect_err(&line);
            assert!(
                message.contains(problem),
                "{line}\n  said: {message}\n  wanted: {problem}"
            );
        }
    }
}
