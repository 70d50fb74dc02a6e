//! The rule every scenario checks, for one client's key: one payment, whatever arrived; every
//! request that repeats the one that created it gets that request's response back, byte for
//! byte and marked as a replay (or a 409 that says when to come back); every other request under
//! the key is refused with a 422. And no request fails.

use kit::{Common, FailureCause};

use crate::observe::PaymentRow;
use crate::violation::Field;
use crate::{Answer, Call, NewPayment, ServerError, ViolationKind};

/// One request a scenario sent, and what came back.
#[derive(Debug, Clone)]
pub(crate) struct Sent {
    pub(crate) call: Call,
    pub(crate) outcome: Result<Answer, ServerError>,
}

impl Sent {
    pub(crate) fn new(call: &Call, outcome: Result<Answer, ServerError>) -> Sent {
        Sent {
            call: call.clone(),
            outcome,
        }
    }
}

/// Judges the requests `client` sent under one key (`sent`, in the order they were sent) by the
/// payments it has afterwards; `ids` is every payment's id, any client's.
pub(crate) fn verdict(
    client: &str,
    payments: &[PaymentRow],
    sent: &[Sent],
    overlapped: bool,
    ids: &[String],
) -> Result<(), ViolationKind> {
    for sent in sent {
        if let Err(error) = &sent.outcome {
            return Err(failed(error));
        }
    }
    let answers: Vec<(&Call, &Answer)> = (sent.iter())
        .filter_map(|s| s.outcome.as_ref().ok().map(|answer| (&s.call, answer)))
        .collect();
    let payment = match payments {
        [payment] => payment,
        [] => {
            return Err(ViolationKind::NeverPaid {
                client: client.into(),
                answers: answers.iter().map(|(_, a)| a.shown()).collect(),
            });
        }
        _ => {
            return Err(ViolationKind::PaidTwice {
                client: client.into(),
                payments: payments.len(),
                created: (answers.iter())
                    .filter(|(_, a)| a.status == 201 && !a.replayed)
                    .count(),
                overlapped,
            });
        }
    };
    // The request that created the payment is the one whose every field it holds: a scenario's
    // requests under one key may differ in any of them, the amount alone included.
    let first_request = |call: &Call| {
        asked_for(call).is_some_and(|asked| {
            (asked.amount_cents, &asked.currency, &asked.description)
                == (
                    payment.amount_cents,
                    &payment.currency,
                    &payment.description,
                )
        })
    };
    // The response every other 201 must repeat: the one not marked as a replay, whichever
    // order the answers came in (a barrier's requests are answered in any order).
    let created: Vec<&Answer> = (answers.iter())
        .filter(|(call, a)| first_request(call) && a.status == 201 && !a.replayed)
        .map(|(_, a)| *a)
        .collect();
    if let [first, again, ..] = created[..] {
        return Err(ViolationKind::ReplayNotMarked {
            first: first.shown(),
            again: again.shown(),
        });
    }
    let mut first: Option<&Answer> = created.first().copied();
    for (call, answer) in answers {
        let shown = answer.shown();
        if !first_request(call) {
            if answer.status == 422 || in_flight(answer)? {
                continue;
            }
            return Err(ViolationKind::KeyReusedNotRefused {
                differs: differs(call, payment),
                answer: shown,
                body: answer.body.clone(),
            });
        }
        if in_flight(answer)? {
            continue;
        }
        if answer.status != 201 {
            return Err(ViolationKind::SameRequestRefused {
                answer: shown,
                body: answer.body.clone(),
            });
        }
        match answer.payment_id() {
            Some(id) if id == payment.id => {}
            Some(id) if ids.contains(&id) => {
                return Err(ViolationKind::NotItsPayment {
                    client: client.into(),
                    answer: shown,
                });
            }
            // No payment has the id the body gives (or it gives none, or not as a string).
            _ => {
                return Err(ViolationKind::NamesNoPayment {
                    client: client.into(),
                    answer: shown.into(),
                    named: named_id(&answer.body).into(),
                    payment: payment.id.as_str().into(),
                });
            }
        }
        let first = *first.get_or_insert(answer);
        if (answer.body.as_str(), &answer.content_type)
            != (first.body.as_str(), &first.content_type)
        {
            return Err(ViolationKind::ReplayDiffers {
                first: first.body.clone(),
                again: answer.body.clone(),
            });
        }
    }
    Ok(())
}

/// What a 201's body gives for the payment's `id`, as its JSON shows it (`17`, `"key-1"`), or
/// that it gives none.
fn named_id(body: &str) -> String {
    let body: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    match &body["id"] {
        serde_json::Value::Null => "no id at all".into(),
        id => format!("the id {id}"),
    }
}

/// Whether `answer` is a 409: nothing done, come back later. One without `Retry-After` leaves
/// the client guessing when.
fn in_flight(answer: &Answer) -> Result<bool, ViolationKind> {
    match (answer.status, &answer.retry_after) {
        (409, Some(_)) => Ok(true),
        (409, None) => Err(ViolationKind::InFlightWithoutRetryAfter {
            answer: answer.shown(),
        }),
        _ => Ok(false),
    }
}

/// The first field in which `call` asks for another payment than `payment`.
fn differs(call: &Call, payment: &PaymentRow) -> Field {
    match asked_for(call) {
        Some(asked) if asked.amount_cents != payment.amount_cents => Field::Amount,
        Some(asked) if asked.currency != payment.currency => Field::Currency,
        Some(asked) if asked.description != payment.description => Field::Description,
        _ => Field::Body,
    }
}

/// The payment `call`'s body asks for.
fn asked_for(call: &Call) -> Option<NewPayment> {
    serde_json::from_str(&call.body).ok()
}

/// A request the API answered with a 5xx, or did not answer: the handler failed, and the
/// problem's `sqlstate` says why.
pub(crate) fn failed(error: &ServerError) -> ViolationKind {
    ViolationKind::Common(Common::HandlerFailed {
        error: error.told(),
        cause: FailureCause::of_problem(error.sqlstate.as_deref(), &error.detail),
    })
}
