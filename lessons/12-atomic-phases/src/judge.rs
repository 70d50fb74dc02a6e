//! The rule every lesson-12 scenario checks, once every request (and the completer) is done:
//! the provider charged once; our books hold that one charge, for its amount; every answer
//! that was not a payment said when to come back; the client's last answer is the payment. And
//! its form for a key the client used again after our window: two payments, each its own
//! charge.

use http_keys::{Answer, Call, Field, ServerError};
use kit::{Common, FailureCause, KitError, TestDatabase};

use crate::ViolationKind;
use crate::violation::{AfterTheWindow, Merged};

/// What the provider and our books hold, read by the test's own session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Books {
    /// Every charge the provider made, as its API names them (`ch_1`), in the order made.
    pub(crate) provider: Vec<String>,
    /// The key each of those charges was asked under (`none-…` when asked without one).
    pub(crate) provider_keys: Vec<String>,
    /// The provider's charge each of our records names, in the order recorded.
    pub(crate) recorded: Vec<String>,
    /// What our books say the clients were charged, in all.
    pub(crate) charged_cents: i64,
    /// What the provider refused, each as its log says it: `acme: <why>`.
    pub(crate) refusals: Vec<String>,
}

impl Books {
    pub(crate) async fn read(db: &TestDatabase) -> Result<Books, KitError> {
        let session = db.session().await?;
        let column = |sql: &'static str| {
            let session = &session;
            async move {
                let rows = (session.query(sql, &[]).await).map_err(KitError::observer(
                    "reading the provider's ledger and our books",
                ))?;
                Ok::<_, KitError>(rows.iter().map(|row| row.get::<_, String>(0)).collect())
            }
        };
        let charged = session
            .query_one(
                "SELECT coalesce(sum(charged_cents), 0)::bigint FROM clients",
                &[],
            )
            .await
            .map_err(KitError::observer("reading our books"))?;
        Ok(Books {
            provider: column("SELECT 'ch_' || id FROM provider.charges ORDER BY id").await?,
            provider_keys: column("SELECT idempotency_key FROM provider.charges ORDER BY id")
                .await?,
            recorded: column("SELECT provider_charge_id FROM charges ORDER BY id").await?,
            charged_cents: charged.get(0),
            refusals: column(
                "SELECT customer || ': ' || reason FROM provider.refusals ORDER BY refused_at",
            )
            .await?,
        })
    }
}

/// One payment the client asked for, as the rule judges it: the key it came under, what it asks
/// for, the answers to its requests (in the order they were sent), and the answers to requests
/// that came under its key asking for something else (`others`), each with the field that
/// differs.
#[derive(Debug, Clone)]
pub(crate) struct Payment {
    pub(crate) call: Call,
    pub(crate) answers: Vec<Result<Answer, ServerError>>,
    pub(crate) others: Vec<(Field, Result<Answer, ServerError>)>,
}

impl Payment {
    /// The amount it asks for, in cents.
    pub(crate) fn amount(&self) -> i64 {
        let body: serde_json::Value = serde_json::from_str(&self.call.body).unwrap_or_default();
        body["amount_cents"].as_i64().unwrap_or_default()
    }
}

/// Judges the client's `payments`, each under a key of its own, by `books`:
/// - every answer says what to do, and a request that asks for something else under a key
///   already used is refused (422);
/// - the provider charged once per payment: never two payments as one, never one twice;
/// - our books hold each charge once, for its amount;
/// - each payment's last answer is a 201 naming a charge of its own.
pub(crate) fn verdict(books: &Books, payments: &[Payment]) -> Result<(), ViolationKind> {
    let all = payments
        .iter()
        .flat_map(|p| (p.answers.iter()).chain(p.others.iter().map(|(_, answer)| answer)));
    every_answer_says_what_to_do(all)?;
    for (differs, answer) in payments.iter().flat_map(|p| &p.others) {
        match answer {
            Ok(answer) if answer.status == 422 => {}
            answer => {
                return Err(ViolationKind::KeyReusedNotRefused {
                    differs: *differs,
                    answer: http_keys::describe_answer(answer),
                    body: answer
                        .as_ref()
                        .map_or_else(|e| e.detail.clone(), |a| a.body.clone()),
                });
            }
        }
    }
    let answers = || {
        (payments.iter().flat_map(|p| p.answers.iter().flatten()))
            .map(Answer::shown)
            .collect::<Vec<_>>()
    };
    let expected = i64::try_from(payments.len()).unwrap_or(i64::MAX);
    match books.provider.len() as i64 {
        0 if !books.refusals.is_empty() => {
            return Err(ViolationKind::ProviderRefused {
                reasons: books.refusals.clone(),
                answers: answers(),
            });
        }
        0 => return Err(ViolationKind::NeverCharged { answers: answers() }),
        charges if charges < expected => {
            return Err(ViolationKind::PaymentsMerged(Box::new(Merged {
                keys: payments.iter().map(|p| p.call.key.clone()).collect(),
                charges: books.provider.clone(),
                answers: answers(),
            })));
        }
        charges if charges > expected => {
            let keyless = (books.provider_keys.iter())
                .filter(|key| key.starts_with(crate::provider::KEYLESS))
                .count();
            return Err(ViolationKind::ChargedTwice { charges, keyless });
        }
        _ => {}
    }
    let amount = payments.iter().map(Payment::amount).sum();
    if (books.recorded.len() as i64, books.charged_cents) != (expected, amount) {
        return Err(ViolationKind::BooksDisagree {
            payments: u32::try_from(payments.len()).unwrap_or(u32::MAX),
            recorded: u32::try_from(books.recorded.len()).unwrap_or(u32::MAX),
            charged_cents: books.charged_cents,
            amount,
            answers: answers(),
        });
    }
    let mut named = Vec::new();
    for payment in payments {
        named.push(last_answer_names(
            &payment.answers,
            &books.provider,
            &named,
        )?);
    }
    Ok(())
}

/// Judges two payments under one key, the second sent after our window had forgotten the key:
/// each a charge of its own at the provider, each recorded once, and the client's last answer
/// the second payment.
pub(crate) fn verdict_after_the_window(
    charges: &Books,
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
    let last = &charges.recorded[charges.recorded.len() - 1..];
    last_answer_names(answers, last, &[]).map(|_| ())
}

/// No answer is a server error, and every "not done" answer says when to come back.
fn every_answer_says_what_to_do<'a>(
    answers: impl IntoIterator<Item = &'a Result<Answer, ServerError>>,
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

/// The payment's last answer is a 201 that names one of the provider's `charges`, one no other
/// payment's answer named (`named`); returns the charge it names.
fn last_answer_names(
    answers: &[Result<Answer, ServerError>],
    charges: &[String],
    named: &[Option<String>],
) -> Result<Option<String>, ViolationKind> {
    let names = |answer: &Answer| {
        let body: serde_json::Value = serde_json::from_str(&answer.body).unwrap_or_default();
        body["provider_charge"].as_str().map(str::to_string)
    };
    match answers.last() {
        Some(Ok(last))
            if last.status == 201
                && names(last).is_some_and(|c| charges.contains(&c))
                && !named.contains(&names(last)) =>
        {
            Ok(names(last))
        }
        Some(Ok(last)) => Err(ViolationKind::LastAnswerNotThePayment {
            answer: last.shown(),
            body: last.body.clone(),
        }),
        _ => Ok(None),
    }
}
