//! The rule every lesson-12 scenario checks, once every request (and the completer) is done:
//! the provider charged once; our books hold that one charge, for its amount; every answer
//! that was not a payment said when to come back; the client's last answer is the payment.

use http_keys::{Answer, ServerError};
use kit::{Common, FailureCause, KitError, TestDatabase};

use crate::ViolationKind;

/// What the provider and our books hold, read by the test's own session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Books {
    pub(crate) provider_charges: i64,
    pub(crate) recorded: i64,
    pub(crate) charged_cents: i64,
    /// The provider's first charge, as its API names it (`ch_1`), if it made one.
    pub(crate) provider_charge: Option<String>,
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
        Ok(Books {
            provider_charges: row.get(0),
            recorded: row.get(1),
            charged_cents: row.get(2),
            provider_charge: row.get(3),
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
    for answer in answers {
        match answer {
            Err(error) => {
                return Err(ViolationKind::Common(Common::HandlerFailed {
                    error: format!("{:?}: {}", error.status, error.detail),
                    cause: FailureCause::of_code(error.sqlstate.as_deref()),
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
    match books.provider_charges {
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
        });
    }
    // The client's last answer is the payment: a 201 that names the provider's charge.
    let names = |answer: &Answer| {
        let body: serde_json::Value = serde_json::from_str(&answer.body).unwrap_or_default();
        body["provider_charge"].as_str() == books.provider_charge.as_deref()
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
