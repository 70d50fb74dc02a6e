//! The rule every lesson-12 scenario checks, once every request (and the completer) is done:
//! the provider charged once; our books hold that one charge, for its amount; every answer
//! that was not a payment said when to come back; the client's last answer is the payment. And
//! its form for a key the client used again after our window: two payments, each its own
//! charge.

use http_keys::{Answer, ServerError};
use kit::{Common, FailureCause, KitError, TestDatabase};

use crate::ViolationKind;
use crate::violation::AfterTheWindow;

/// What the provider and our books hold, read by the test's own session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Books {
    pub(crate) provider_charges: i64,
    pub(crate) recorded: i64,
    pub(crate) charged_cents: i64,
    /// The provider's first charge, as its API names it (`ch_1`), if it made one.
    pub(crate) provider_charge: Option<String>,
    /// What the provider refused, each as its log says it: `acme: <why>`.
    pub(crate) refusals: Vec<String>,
}

impl Books {
    pub(crate) async fn read(db: &TestDatabase) -> Result<Books, KitError> {
        let session = db.session().await?;
        let row = session
            .query_one(
                "SELECT (SELECT count(*) FROM provider.charges),
                        (SELECT count(*) FROM charges),
                        (SELECT coalesce(sum(charged_cents), 0)::bigint FROM clients),
                        (SELECT 'ch_' || min(id) FROM provider.charges)",
                &[],
            )
            .await
            .map_err(KitError::observer(
                "reading the provider's ledger and our books",
            ))?;
        let refusals = session
            .query(
                "SELECT customer || ': ' || reason FROM provider.refusals ORDER BY refused_at",
                &[],
            )
            .await
            .map_err(KitError::observer("reading the provider's refusals"))?;
        Ok(Books {
            provider_charges: row.get(0),
            recorded: row.get(1),
            charged_cents: row.get(2),
            provider_charge: row.get(3),
            refusals: refusals.iter().map(|row| row.get(0)).collect(),
        })
    }
}

/// Every charge the provider made, and the provider's charge each of our records names, both in
/// the order they were made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Charges {
    pub(crate) provider: Vec<String>,
    pub(crate) recorded: Vec<String>,
}

impl Charges {
    pub(crate) async fn read(db: &TestDatabase) -> Result<Charges, KitError> {
        let session = db.session().await?;
        let ids = |sql: &'static str| {
            let session = &session;
            async move {
                let rows = (session.query(sql, &[]).await).map_err(KitError::observer(
                    "reading the provider's ledger and our books",
                ))?;
                Ok::<_, KitError>(rows.iter().map(|row| row.get::<_, String>(0)).collect())
            }
        };
        Ok(Charges {
            provider: ids("SELECT 'ch_' || id FROM provider.charges ORDER BY id").await?,
            recorded: ids("SELECT provider_charge_id FROM charges ORDER BY id").await?,
        })
    }
}

/// Judges one key's requests (`answers`, in the order they were sent) by `books`; `amount` is
/// what the request asks for.
pub(crate) fn verdict(
    books: &Books,
    amount: i64,
    answers: &[Result<Answer, ServerError>],
) -> Result<(), ViolationKind> {
    every_answer_says_what_to_do(answers)?;
    match books.provider_charges {
        0 if !books.refusals.is_empty() => {
            return Err(ViolationKind::ProviderRefused {
                reasons: books.refusals.clone(),
                answers: (answers.iter().flatten()).map(Answer::shown).collect(),
            });
        }
        0 => {
            return Err(ViolationKind::NeverCharged {
                answers: (answers.iter().flatten()).map(Answer::shown).collect(),
            });
        }
        1 => {}
        charges => return Err(ViolationKind::ChargedTwice { charges }),
    }
    if (books.recorded, books.charged_cents) != (1, amount) {
        return Err(ViolationKind::BooksDisagree {
            recorded: books.recorded,
            charged_cents: books.charged_cents,
            amount,
            answers: (answers.iter().flatten()).map(Answer::shown).collect(),
        });
    }
    last_answer_names(answers, books.provider_charge.as_deref())
}

/// Judges two payments under one key, the second sent after our window had forgotten the key:
/// each a charge of its own at the provider, each recorded once, and the client's last answer
/// the second payment.
pub(crate) fn verdict_after_the_window(
    charges: &Charges,
    answers: &[Result<Answer, ServerError>],
) -> Result<(), ViolationKind> {
    every_answer_says_what_to_do(answers)?;
    let named: std::collections::HashSet<_> = charges.recorded.iter().collect();
    let distinct = named.len() == charges.recorded.len();
    if charges.provider.len() != 2 || charges.recorded.len() != 2 || !distinct {
        return Err(ViolationKind::KeyReusedAfterTheWindow(Box::new(
            AfterTheWindow {
                provider: charges.provider.clone(),
                recorded: charges.recorded.clone(),
                answer: match answers.last() {
                    Some(Ok(answer)) => answer.shown(),
                    Some(answer) => http_keys::describe_answer(answer),
                    None => "nothing".into(),
                },
            },
        )));
    }
    last_answer_names(answers, charges.recorded.last().map(String::as_str))
}

/// No answer is a server error, and every "not done" answer says when to come back.
fn every_answer_says_what_to_do(
    answers: &[Result<Answer, ServerError>],
) -> Result<(), ViolationKind> {
    for answer in answers {
        match answer {
            Err(error) => {
                return Err(ViolationKind::Common(Common::HandlerFailed {
                    error: error.told(),
                    cause: FailureCause::of_problem(error.sqlstate.as_deref(), &error.detail),
                }));
            }
            Ok(answer) if matches!(answer.status, 409 | 503) && answer.retry_after.is_none() => {
                return Err(ViolationKind::NoRetryAfter {
                    answer: answer.shown(),
                });
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

/// The client's last answer is the payment: a 201 that names the provider's `charge`.
fn last_answer_names(
    answers: &[Result<Answer, ServerError>],
    charge: Option<&str>,
) -> Result<(), ViolationKind> {
    let names = |answer: &Answer| {
        let body: serde_json::Value = serde_json::from_str(&answer.body).unwrap_or_default();
        body["provider_charge"].as_str() == charge
    };
    match answers.last() {
        Some(Ok(last)) if last.status == 201 && names(last) => Ok(()),
        Some(Ok(last)) => Err(ViolationKind::LastAnswerNotThePayment {
            answer: last.shown(),
            body: last.body.clone(),
        }),
        _ => Ok(()),
    }
}
