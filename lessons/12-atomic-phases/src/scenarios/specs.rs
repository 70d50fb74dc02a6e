//! Lesson 12's scripted stories are data, `specs/*.spec`: how their steps reach the API and the
//! completer, which of them, a student's own included (`cargo workbook break 12`), lesson 12's
//! rule can judge, and what the rule needs to judge a permutation. `lesson.rs` plays and judges
//! them: a fresh database with the API in front of the handler; the spec's setup; the sessions
//! in its order (the kit's engine), each request sent over HTTP to a provider that does what
//! its line says, each run of the completer at the time its line gives; then the rule
//! (`judge.rs`).

use chrono::TimeDelta;
use http_keys::{Answer, Call, Field, ServerError};
use kit::spec::{Feed, Run, Spec, SpecError};
use serde_json::{Map, Value};

use super::{describe, shown};
use crate::judge::Payment;
use crate::{Api, Behaviour, Delivery, LEASE, Outcome, Request, Step, Violation, ViolationKind};

/// How the specs reach the API and the completer (`deliver {JSON}`, a request or a run of the
/// completer), how a trace shows each step, and how it shows what the step did.
pub const FEED: Feed<Step, Outcome> = Feed {
    read,
    shown,
    describe,
};

const REQUEST: &str =
    r#"{"client": "acme", "key": "k-1", "body": {"amount_cents": 1500, "currency": "eur"}}"#;
const COMPLETE: &str = r#"{"complete": {"seconds_later": 31}}"#;

/// A step as a spec writes it: a request as `deliver 12` reads a line, with, if it says so, what
/// the provider does with its charge (`"provider": "fails"`) and how many seconds after the
/// API's clock says now it arrives (`"seconds_later": 31`); or a run of the completer,
/// `{"complete": {"seconds_later": 31}}`.
pub fn read(json: &str) -> Result<Step, String> {
    let mut line: Map<String, Value> = serde_json::from_str(json).map_err(|e| {
        format!("it is not a step ({e}); expected a request like {REQUEST}, or {COMPLETE}")
    })?;
    if let Some(complete) = line.remove("complete") {
        let when = complete.as_object().filter(|_| line.is_empty());
        let later = when.and_then(|when| match when.len() {
            0 => Some(Ok(TimeDelta::zero())),
            1 => when.get("seconds_later").map(seconds),
            _ => None,
        });
        return match later {
            Some(later) => Ok(Step::Complete { later: later? }),
            None => Err(format!(
                "a run of the completer says only when it runs, as {COMPLETE}"
            )),
        };
    }
    let provider = match line.remove("provider") {
        None => Behaviour::Answer,
        Some(said) => behaviour(&said)?,
    };
    let later = match line.remove("seconds_later") {
        None => TimeDelta::zero(),
        Some(said) => seconds(&said)?,
    };
    let call = http_keys::by_hand::parse(&Value::Object(line).to_string())?;
    Ok(Step::Request(Request {
        call,
        provider,
        later,
    }))
}

fn behaviour(said: &Value) -> Result<Behaviour, String> {
    match said.as_str() {
        Some("answers") => Ok(Behaviour::Answer),
        Some("fails") => Ok(Behaviour::Fail),
        Some("charges and hangs up") => Ok(Behaviour::ChargeThenHangUp),
        _ => Err(format!(
            "the provider {said} is none the lesson knows: \"answers\", \"fails\" or \"charges \
             and hangs up\""
        )),
    }
}

fn seconds(said: &Value) -> Result<TimeDelta, String> {
    (said
        .as_i64()
        .filter(|s| (0..=86_400).contains(s))
        .map(TimeDelta::seconds))
    .ok_or_else(|| {
        format!("seconds_later is {said}: a whole number of seconds, from 0 to a day (86400)")
    })
}

/// The steps a spec delivers. The rule judges acme's payments, one per key: every request is
/// acme's (what it asks for, under which key, what the provider does, and when, may differ).
pub fn your_steps(spec: &Spec) -> Result<Vec<Step>, SpecError> {
    let steps = spec.events("lesson 12", FEED.read)?;
    let mut requests =
        (steps.iter().zip(spec.deliveries())).filter_map(|(step, (_, line, _))| match step {
            Step::Request(request) => Some((line, &request.call)),
            Step::Complete { .. } => None,
        });
    let refused = |line, message: &str| SpecError {
        line,
        message: format!("{message}: lesson 12's rule judges acme's payments, as {REQUEST}"),
    };
    let Some((line, first)) = requests.next() else {
        return Err(refused(1, "no session sends a request"));
    };
    match std::iter::once((line, first))
        .chain(requests)
        .find(|(_, call)| call.client != "acme")
    {
        None => Ok(steps),
        Some((line, _)) => Err(refused(line, "the request is not acme's")),
    }
}

/// acme's payments, one per key in the order the spec first sends each key: the payment is what
/// the key's first request to be paid asked for (or its first request, if none was), with the
/// answers to every request that asked for the same (the paid ones last: acme keeps a payment
/// once any answer carried it); a request that asked for something else is one of its `others`.
pub(crate) fn payments(steps: &[(&str, Step)], outcomes: &[(String, Outcome)]) -> Vec<Payment> {
    let answered = |session: &str| {
        (outcomes.iter()).find_map(|(s, outcome)| match outcome {
            Outcome::Answered(answer) if s == session => Some(answer.clone()),
            _ => None,
        })
    };
    let requests: Vec<(&Call, Option<_>)> = (steps.iter())
        .filter_map(|(session, step)| match step {
            Step::Request(request) => Some((&request.call, answered(session))),
            Step::Complete { .. } => None,
        })
        .collect();
    let paid = |answer: &Option<Result<Answer, ServerError>>| matches!(answer, Some(Ok(answer)) if answer.status == 201);
    let mut payments: Vec<Payment> = Vec::new();
    for (call, _) in &requests {
        if payments.iter().any(|p| p.call.key == call.key) {
            continue;
        }
        let under_it = || requests.iter().filter(|(c, _)| c.key == call.key);
        let first_paid = under_it().find(|(_, answer)| paid(answer));
        let payment = (*first_paid.map_or(call, |(c, _)| c)).clone();
        let (mut answers, mut paid_ones, mut others) = (Vec::new(), Vec::new(), Vec::new());
        for (asked, answer) in under_it() {
            let Some(answer) = answer.clone() else {
                continue;
            };
            if asked.body != payment.body {
                others.push((Field::between(&payment, asked), answer));
            } else if paid(&Some(answer.clone())) {
                paid_ones.push(answer);
            } else {
                answers.push(answer);
            }
        }
        answers.extend(paid_ones);
        payments.push(Payment {
            call: payment,
            answers,
            others,
        });
    }
    payments
}

/// acme's request for `payment`, sent again once every lease has run out and every step's time
/// has passed, to a provider that answers.
pub(crate) async fn again<H: Api>(
    db: &kit::TestDatabase,
    http: &H,
    steps: &[(&str, Step)],
    payment: &Call,
    during: Delivery,
) -> Result<Outcome, Violation> {
    let latest = (steps.iter())
        .map(|(_, step)| match step {
            Step::Request(request) => request.later + LEASE,
            Step::Complete { later } => *later,
        })
        .max();
    let again = Request {
        later: latest.unwrap_or(LEASE) + TimeDelta::seconds(1),
        ..Request::now(payment)
    };
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    Ok(kit::Handler::call(http, pool, Step::Request(again)).await)
}

/// The sessions whose calls reached the provider, by its access log.
pub(crate) async fn provider_callers(db: &kit::TestDatabase) -> Result<Vec<String>, kit::KitError> {
    let session = db.session().await?;
    let rows = (session
        .query("SELECT DISTINCT caller FROM provider.calls", &[])
        .await)
        .map_err(kit::KitError::observer("reading the provider's access log"))?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// A run of the completer that finished a key when a request delivered before it still held its
/// lease, and was working on it (its call reached the provider, one of `callers`): it took the
/// key from a request that was slow, not dead. A request told to come back held no lease.
pub(crate) fn took_over_a_live_lease(
    run: Run<'_, Delivery>,
    steps: &[(&str, Step)],
    outcomes: &[(String, Outcome)],
    callers: &[String],
) -> Option<ViolationKind> {
    let completed = |session: &str| {
        (outcomes.iter())
            .any(|(s, o)| s == session && matches!(o, Outcome::Completed(Ok(n)) if *n > 0))
    };
    let mut leases = Vec::new();
    let mut took = false;
    for name in &run.permutation.steps {
        let Some((session, _)) = run.spec.step(name) else {
            continue;
        };
        match (steps.iter()).find(|(s, _)| *s == session.name) {
            Some((_, Step::Request(request))) if callers.contains(&session.name) => {
                leases.push(request.later);
            }
            Some((_, Step::Complete { later })) => {
                let live = (leases.iter()).any(|from| from <= later && *later < *from + LEASE);
                took |= live && completed(&session.name);
            }
            _ => {}
        }
    }
    let answer = (outcomes.iter()).find_map(|(_, o)| match o {
        Outcome::Answered(answer) => Some(http_keys::describe_answer(answer)),
        Outcome::Completed(_) => None,
    });
    took.then(|| ViolationKind::TookOverALiveLease {
        answer: answer.unwrap_or_default(),
    })
}
