//! Lesson 12's stories, each judged by the rule in judge.rs: one charge at the provider, one in
//! our books, every "not done" answer saying when to come back, and the client's last answer
//! the payment. The scripted ones are specs (`specs/`, played by `lesson.rs`); here are the ones
//! data cannot say yet: the provider that hangs up, the slow provider with two clients on one
//! connection, the provider's key over a longer life (provider_key.rs), and the barrier.

mod barrier;
mod provider_key;
mod specs;

pub use barrier::{BARRIER_ROUNDS, barrier, barrier_rounds};
pub use provider_key::{key_used_again_after_the_window, longest_key_is_charged};
pub use specs::{FEED, read, your_steps};
pub(crate) use specs::{again, payments, provider_callers, took_over_a_live_lease};

use chrono::TimeDelta;
use http_keys::{Answer, Call, ServerError};
use kit::{Subject, TestDatabase};

use crate::judge::{Books, Payment, verdict};
use crate::{Api, Behaviour, Delivery, LEASE, Outcome, Request, Step, Violation, ViolationKind};

/// The amount every scenario's request asks for.
const AMOUNT: i64 = 1500;

fn payment() -> Call {
    Call::payment("acme", "k-1", AMOUNT)
}

/// acme's request, arriving now, to a provider that answers.
fn payment_now() -> Step {
    request(Behaviour::Answer, TimeDelta::zero())
}

/// acme's request, arriving `later` than the API's clock says now, to a provider that behaves
/// as `provider` says.
fn request(provider: Behaviour, later: TimeDelta) -> Step {
    Step::Request(Request {
        provider,
        later,
        ..Request::now(&payment())
    })
}

/// Past the lease of a request that arrived now.
fn after_lease(seconds: i64) -> TimeDelta {
    LEASE + TimeDelta::seconds(seconds)
}

/// How a trace shows a step: `POST /payments (acme, k-1), +31s` or `complete, +31s`.
fn shown(step: &Step) -> String {
    match step {
        Step::Request(request) => format!(
            "POST /payments ({}, {}), {:+}s",
            request.call.client,
            request.call.key,
            request.later.num_seconds()
        ),
        Step::Complete { later } => format!("complete, {:+}s", later.num_seconds()),
    }
}

pub(crate) fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Answered(answer) => http_keys::describe_answer(answer),
        Outcome::Completed(Ok(n)) => format!("{n} key(s) completed"),
        Outcome::Completed(Err(error)) => error.clone(),
    }
}

/// The API's answers among `outcomes`, in the order given; a completer that failed is the
/// scenario's failure.
pub(crate) fn answers(
    outcomes: impl IntoIterator<Item = Outcome>,
) -> Result<Vec<Result<Answer, ServerError>>, ViolationKind> {
    let mut answers = Vec::new();
    for outcome in outcomes {
        match outcome {
            Outcome::Answered(answer) => answers.push(answer),
            Outcome::Completed(Ok(_)) => {}
            Outcome::Completed(Err(error)) => {
                return Err(ViolationKind::Common(kit::Common::HandlerFailed {
                    error: format!("the completer failed: {error}"),
                    cause: kit::FailureCause::Other,
                }));
            }
        }
    }
    Ok(answers)
}

async fn prepare<H: Api>(
    subject: &Subject<H>,
    during: Delivery,
) -> Result<TestDatabase, Violation> {
    TestDatabase::create(&subject.schema)
        .await
        .map_err(Violation::setup(during))
}

/// Sends `steps` one after the other, each once the last is done, each on a pool of its own.
async fn one_by_one<H: Api>(
    db: &TestDatabase,
    http: &H,
    steps: Vec<Step>,
    during: Delivery,
) -> Result<Vec<Outcome>, Violation> {
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let mut outcomes = Vec::new();
    for step in steps {
        outcomes.push(kit::Handler::call(http, pool.clone(), step).await);
    }
    Ok(outcomes)
}

/// The rule, for acme's `payments` (the books alone, if their answers are left empty).
pub(crate) async fn judge_books(
    db: &TestDatabase,
    payments: &[Payment],
    during: Delivery,
    trace: Option<&kit::Trace>,
) -> Result<(), Violation> {
    let books = Books::read(db).await.map_err(Violation::setup(during))?;
    verdict(&books, payments).map_err(Violation::caught(during, trace))
}

/// The rule, and a pass offers the trace to the chapter.
pub(crate) async fn judge(
    db: &TestDatabase,
    payments: &[Payment],
    during: Delivery,
    trace: Option<&kit::Trace>,
) -> Result<(), Violation> {
    judge_books(db, payments, during, trace).await?;
    if let Some(trace) = trace {
        kit::passing_trace(trace);
    }
    Ok(())
}

/// The rule for a story of acme's one payment, by the answers among `outcomes` (a completer
/// that failed fails the story).
async fn judge_outcomes(
    db: &TestDatabase,
    outcomes: Vec<Outcome>,
    during: Delivery,
) -> Result<(), Violation> {
    let acme = Payment {
        call: payment(),
        answers: answers(outcomes).map_err(Violation::caught(during, None))?,
        others: Vec::new(),
    };
    judge(db, &[acme], during, None).await
}

// ANCHOR: hang_up
/// The provider charges acme's card and hangs up before answering: acme gets a 503 (the
/// outcome is not known yet), and sends the request again once the lease has run out, when
/// the key can be taken over and the provider asked again under the same key.
pub async fn provider_hangs_up_then_retried<H: Api>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "the provider charged acme's card and hung up before answering, and acme sent its \
         request again once the lease had run out",
    );
    let db = prepare(&subject, during).await?;
    let steps = vec![
        request(Behaviour::ChargeThenHangUp, TimeDelta::zero()),
        request(Behaviour::Answer, after_lease(1)),
    ];
    let outcomes = one_by_one(&db, &subject.handler, steps, during).await?;
    judge_outcomes(&db, outcomes, during).await
}
// ANCHOR_END: hang_up

// ANCHOR: slow
/// One instance of the API, with one database connection: acme's request waits on a slow
/// provider (a script holds acme's row there) while globex's request arrives. globex needs
/// nothing of acme's, and must be answered with its payment before acme's provider answers.
/// Both requests share the one connection, as one instance of the API shares its pool.
pub async fn slow_provider_holds_up_no_one<H: Api>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme's request waited on a slow provider while globex's request reached the same \
         instance of the API, which has one database connection (a scripted interleaving)",
    );
    let db = prepare(&subject, during).await?;
    let pool = db
        .pool_named(1, "api")
        .await
        .map_err(Violation::setup(during))?;
    let mut interleaving = (kit::Interleaving::new(&db).await).map_err(Violation::setup(during))?;
    let holder = (interleaving.session(&db, "holder").await).map_err(Violation::setup(during))?;
    for sql in [
        "INSERT INTO provider.customers VALUES ('acme')",
        "BEGIN; SELECT 1 FROM provider.customers WHERE id = 'acme' FOR UPDATE",
    ] {
        (interleaving.step(&holder, sql).await).map_err(Violation::setup(during))?;
    }
    let acme = {
        let (api, step) = (subject.handler.clone(), payment_now());
        let shown = "POST /payments (acme, k-1)";
        interleaving.start("api", &pool, shown, move |pool| async move {
            answered(kit::Handler::call(&api, pool, step).await)
        })
    };
    let acme = acme.await.map_err(Violation::setup(during))?;
    let globex = Step::Request(Request::now(&Call::payment("globex", "k-1", AMOUNT)));
    let globex = answered(kit::Handler::call(&subject.handler, pool.clone(), globex).await);
    interleaving.note(format!(
        "globex: POST /payments (globex, k-1): {}",
        http_keys::describe_answer(&globex)
    ));
    (interleaving.step(&holder, "COMMIT").await).map_err(Violation::setup(during))?;
    let acme = interleaving.finish(acme, http_keys::describe_answer).await;
    let acme = acme.map_err(Violation::setup(during))?;
    let caught = Violation::caught(during, Some(interleaving.trace()));
    let refusals = (Books::read(&db).await)
        .map_err(Violation::setup(during))?
        .refusals;
    match (&globex, &acme) {
        (Ok(globex), Ok(acme)) if globex.status == 201 && acme.status == 201 => Ok(()),
        // The provider said why it did not charge: that, and not a guess, is the message.
        (Ok(globex), acme) if globex.status == 201 && !refusals.is_empty() => {
            Err(caught(ViolationKind::ProviderRefused {
                reasons: refusals,
                answers: vec![http_keys::describe_answer(acme)],
            }))
        }
        (Ok(globex), acme) if globex.status == 201 => {
            Err(caught(ViolationKind::LastAnswerNotThePayment {
                answer: http_keys::describe_answer(acme),
                body: acme
                    .as_ref()
                    .map_or_else(|e| e.detail.clone(), |a| a.body.clone()),
            }))
        }
        (globex, _) => Err(caught(ViolationKind::HeldUpByASlowProvider {
            answer: http_keys::describe_answer(globex),
        })),
    }
}
// ANCHOR_END: slow

/// What the API answered a request: a step that is a request is answered, never completed.
fn answered(outcome: Outcome) -> Result<Answer, ServerError> {
    match outcome {
        Outcome::Answered(answer) => answer,
        Outcome::Completed(done) => unreachable!("a request was completed: {done:?}"),
    }
}
