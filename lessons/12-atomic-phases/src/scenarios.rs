//! Lesson 12's stories, each judged by the rule in judge.rs: one charge at the provider, one in
//! our books, every "not done" answer saying when to come back, and the client's last answer
//! the payment.

mod barrier;
mod provider_key;

pub use barrier::{BARRIER_ROUNDS, barrier, barrier_rounds};
pub use provider_key::{key_used_again_after_the_window, longest_key_is_charged};

use chrono::TimeDelta;
use http_keys::{Answer, Call, ServerError};
use kit::{Subject, TestDatabase};

use crate::judge::{Books, verdict};
use crate::{
    Behaviour, Clock, Delivery, Handler, Http, LEASE, Outcome, Request, Step, Violation,
    ViolationKind,
};

/// The amount every scenario's request asks for.
const AMOUNT: i64 = 1500;

fn payment() -> Call {
    Call::payment("acme", "k-1", AMOUNT)
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
            "POST /payments (acme, k-1), {:+}s",
            request.later.num_seconds()
        ),
        Step::Complete { later } => format!("complete, {:+}s", later.num_seconds()),
    }
}

fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Answered(answer) => http_keys::describe_answer(answer),
        Outcome::Completed(Ok(n)) => format!("{n} key(s) completed"),
        Outcome::Completed(Err(error)) => error.clone(),
    }
}

/// The API's answers among `outcomes`, in the order given; a completer that failed is the
/// scenario's failure.
fn answers(
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

fn http<H: Handler>(subject: &Subject<H>) -> Http<H> {
    Http {
        handler: subject.handler.clone(),
        clock: Clock::default(),
    }
}

async fn prepare<H: Handler>(
    subject: &Subject<H>,
    during: Delivery,
) -> Result<TestDatabase, Violation> {
    TestDatabase::create(&subject.schema)
        .await
        .map_err(Violation::setup(during))
}

/// Sends `steps` one after the other, each once the last is done, each on a pool of its own.
async fn one_by_one<H: Handler>(
    db: &TestDatabase,
    http: &Http<H>,
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

/// The books alone, once the completer ran and before anyone retried.
async fn judge_books(
    db: &TestDatabase,
    outcomes: Vec<Outcome>,
    during: Delivery,
    trace: Option<&kit::Trace>,
) -> Result<(), Violation> {
    judge_answers(db, outcomes, false, during, trace).await
}

async fn judge(
    db: &TestDatabase,
    outcomes: Vec<Outcome>,
    during: Delivery,
    trace: Option<&kit::Trace>,
) -> Result<(), Violation> {
    judge_answers(db, outcomes, true, during, trace).await?;
    // A pass offers the trace to the chapter.
    if let Some(trace) = trace {
        kit::passing_trace(trace);
    }
    Ok(())
}

/// The books by the rule, with the client's answers among `outcomes` when `by_answers` (a
/// completer that failed fails the scenario either way).
async fn judge_answers(
    db: &TestDatabase,
    outcomes: Vec<Outcome>,
    by_answers: bool,
    during: Delivery,
    trace: Option<&kit::Trace>,
) -> Result<(), Violation> {
    let answers = answers(outcomes).map_err(Violation::caught(during, trace))?;
    let books = Books::read(db).await.map_err(Violation::setup(during))?;
    let judged = if by_answers { &answers[..] } else { &[] };
    verdict(&books, AMOUNT, judged).map_err(Violation::caught(during, trace))
}

// ANCHOR: hang_up
/// The provider charges acme's card and hangs up before answering: acme gets a 503 (the
/// outcome is not known yet), and sends the request again once the lease has run out, when
/// the key can be taken over and the provider asked again under the same key.
pub async fn provider_hangs_up_then_retried<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "the provider charged acme's card and hung up before answering, and acme sent its \
         request again once the lease had run out",
    );
    let db = prepare(&subject, during).await?;
    let steps = vec![
        request(Behaviour::ChargeThenHangUp, TimeDelta::zero()),
        request(Behaviour::Answer, after_lease(1)),
    ];
    let outcomes = one_by_one(&db, &http(&subject), steps, during).await?;
    judge(&db, outcomes, during, None).await
}
// ANCHOR_END: hang_up

// ANCHOR: fails
/// The provider fails before charging (a 500: it promises it charged nothing), and acme's retry
/// arrives while the first request is still finishing: the retry finds the key claimed, and is
/// told to come back, never a 500. A script holds the provider (so that the retry comes after
/// the claim) and then the key's row (so that whatever the first request does to the key after
/// the failure, the retry looks for the row after it). acme's retry after the lease pays, once.
pub async fn provider_fails_then_retried<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "the provider failed before charging while acme's retry was on its way (a scripted \
         interleaving), and acme sent the request again once the lease had run out",
    );
    let db = prepare(&subject, during).await?;
    let http = http(&subject);
    let setup = || Violation::setup(during);
    let mut script = (kit::Interleaving::new(&db).await).map_err(setup())?;
    let provider = (script.session(&db, "provider").await).map_err(setup())?;
    let keys = (script.session(&db, "keys").await).map_err(setup())?;
    for sql in [
        "INSERT INTO provider.customers VALUES ('acme')",
        "BEGIN; SELECT 1 FROM provider.customers WHERE id = 'acme' FOR UPDATE",
    ] {
        (script.step(&provider, sql).await).map_err(setup())?;
    }
    let first = request(Behaviour::Fail, TimeDelta::zero());
    let mut first = start(&mut script, &db, &http, "api-1", first, during).await?;
    let locked = "BEGIN; SELECT 1 FROM idempotency_keys FOR UPDATE";
    (script.step(&keys, locked).await).map_err(setup())?;
    (script.step(&provider, "COMMIT").await).map_err(setup())?;
    (script.settle(&mut first).await).map_err(setup())?;
    // The trace shows a first request that is done by now as done before the retry starts.
    let mut outcomes = Vec::new();
    let first = if first.was_waiting() {
        Some(first)
    } else {
        outcomes.push((script.finish(first, describe).await).map_err(setup())?);
        None
    };
    let retry = request(Behaviour::Answer, TimeDelta::zero());
    let retry = start(&mut script, &db, &http, "api-2", retry, during).await?;
    (script.step(&keys, "COMMIT").await).map_err(setup())?;
    for worker in first.into_iter().chain([retry]) {
        outcomes.push((script.finish(worker, describe).await).map_err(setup())?);
    }
    let pool = db.pool(1).await.map_err(setup())?;
    let last = request(Behaviour::Answer, after_lease(1));
    let last = kit::Handler::call(&http, pool, last).await;
    script.note(format!("acme retries after the lease: {}", describe(&last)));
    outcomes.push(last);
    judge(&db, outcomes, during, Some(script.trace())).await
}
// ANCHOR_END: fails

/// `step` as `worker`, on a pool of one connection, until it waits on a lock or is done.
async fn start<H: Handler>(
    script: &mut kit::Interleaving,
    db: &TestDatabase,
    http: &Http<H>,
    worker: &str,
    step: Step,
    during: Delivery,
) -> Result<kit::Worker<Outcome>, Violation> {
    let pool = (db.pool_named(1, worker).await).map_err(Violation::setup(during))?;
    let shown_as = shown(&step);
    let http = http.clone();
    let run = move |pool| kit::Handler::call(&http, pool, step);
    (script.start(worker, &pool, shown_as, run).await).map_err(Violation::setup(during))
}

/// A script whose `holder` keeps the provider busy with acme's charge from its step `slow` to
/// its step `release` (the provider locks the customer's row first), after `seed`.
fn with_a_slow_provider<H: Handler>(http: &Http<H>) -> kit::Script<Step, Http<H>> {
    kit::Script::new(http, shown)
        .sql(
            "holder",
            "seed",
            "INSERT INTO provider.customers VALUES ('acme')",
        )
        .sql(
            "holder",
            "slow",
            "BEGIN; SELECT 1 FROM provider.customers WHERE id = 'acme' FOR UPDATE",
        )
        .sql("holder", "release", "COMMIT")
}

// ANCHOR: zombie
/// The zombie: acme's first request waits on a slow provider (a script holds acme's row there)
/// until its lease has run out; acme's retry takes the key over and waits on the provider too.
/// The provider answers both with the one charge of the derived key. The first request wakes a
/// zombie: whatever it writes now, it writes for a key that is no longer its own.
pub async fn zombie_wakes_after_the_key_was_taken_over<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme's first request waited on a slow provider until its lease ran out, acme's retry \
         took the key over, and then the provider answered both (a scripted interleaving)",
    );
    let db = prepare(&subject, during).await?;
    let script = with_a_slow_provider(&http(&subject))
        .deliver(
            "api-1",
            "first",
            request(Behaviour::Answer, TimeDelta::zero()),
        )
        .deliver("api-2", "retry", request(Behaviour::Answer, after_lease(1)));
    let (interleaving, ran) = kit::play(
        &db,
        script,
        "seed slow first retry release",
        describe,
        during,
    )
    .await?;
    // Either request may be the one that records: the other is told to come back, and the
    // payment is what the client ends up with.
    let (paid, other): (Vec<_>, Vec<_>) = (ran.outcomes.into_iter().map(|(_, o)| o))
        .partition(|o| matches!(o, Outcome::Answered(Ok(a)) if a.status == 201));
    let outcomes = other.into_iter().chain(paid).collect();
    judge(&db, outcomes, during, Some(interleaving.trace())).await
}
// ANCHOR_END: zombie

// ANCHOR: dies
/// acme's request charges at the provider and dies before it records the charge (killed while
/// its last phase waits for acme's row in `clients`, which a script holds). The completer runs
/// once the lease has run out: the charge must be in our books then, before any retry (many
/// clients never come back). acme retries after that, and gets the payment.
pub async fn dies_between_phases_then_completed<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme's request died after the provider charged and before it recorded the charge (a \
         scripted crash), and the completer ran once the lease had run out",
    );
    let db = prepare(&subject, during).await?;
    let http = http(&subject);
    let script = kit::Script::new(&http, shown)
        .sql("holder", "seed", "INSERT INTO clients (id) VALUES ('acme')")
        .sql(
            "holder",
            "lock",
            "BEGIN; SELECT 1 FROM clients WHERE id = 'acme' FOR UPDATE",
        )
        .sql("holder", "commit", "COMMIT")
        .deliver(
            "api-1",
            "first",
            request(Behaviour::Answer, TimeDelta::zero()),
        )
        .kill("die", "api-1")
        .deliver(
            "completer",
            "complete",
            Step::Complete {
                later: after_lease(1),
            },
        );
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "seed lock first die commit complete",
        describe,
        during,
    )
    .await?;
    // Before any retry: many clients never come back, and the completer alone must have put
    // the charge in our books.
    let completed = ran.outcomes.into_iter().map(|(_, o)| o).collect();
    let trace = interleaving.trace().clone();
    judge_books(&db, completed, during, Some(&trace)).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let again = kit::Handler::call(&http, pool, request(Behaviour::Answer, after_lease(2))).await;
    let again = match again {
        Outcome::Answered(answer) => answer,
        Outcome::Completed(_) => unreachable!("a request is answered"),
    };
    interleaving.note(format!(
        "acme retries: {}",
        http_keys::describe_answer(&again)
    ));
    judge(
        &db,
        vec![Outcome::Answered(again)],
        during,
        Some(interleaving.trace()),
    )
    .await
}
// ANCHOR_END: dies

// ANCHOR: live_lease
/// The completer runs while acme's request waits on a slow provider, its lease still live: the
/// request is slow, not dead, and the completer must leave its key alone.
pub async fn completer_leaves_a_live_lease_alone<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "the completer ran while acme's request waited on a slow provider, its lease still \
         live (a scripted interleaving)",
    );
    let db = prepare(&subject, during).await?;
    let script = with_a_slow_provider(&http(&subject))
        .deliver(
            "api-1",
            "first",
            request(Behaviour::Answer, TimeDelta::zero()),
        )
        .deliver(
            "completer",
            "complete",
            Step::Complete {
                later: TimeDelta::seconds(1),
            },
        );
    let (interleaving, ran) = kit::play(
        &db,
        script,
        "seed slow first complete release",
        describe,
        during,
    )
    .await?;
    let outcomes: Vec<Outcome> = ran.outcomes.into_iter().map(|(_, o)| o).collect();
    let took_over = outcomes
        .iter()
        .any(|o| matches!(o, Outcome::Completed(Ok(n)) if *n > 0));
    if took_over {
        let answer = (outcomes.iter())
            .find_map(|o| match o {
                Outcome::Answered(answer) => Some(http_keys::describe_answer(answer)),
                Outcome::Completed(_) => None,
            })
            .unwrap_or_default();
        return Err(Violation::caught(during, Some(interleaving.trace()))(
            ViolationKind::TookOverALiveLease { answer },
        ));
    }
    judge(&db, outcomes, during, Some(interleaving.trace())).await
}
// ANCHOR_END: live_lease

// ANCHOR: slow
/// One instance of the API, with one database connection: acme's request waits on a slow
/// provider (a script holds acme's row there) while globex's request arrives. globex needs
/// nothing of acme's, and must be answered with its payment before acme's provider answers.
pub async fn slow_provider_holds_up_no_one<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme's request waited on a slow provider while globex's request reached the same \
         instance of the API, which has one database connection (a scripted interleaving)",
    );
    let db = prepare(&subject, during).await?;
    let pool = db
        .pool_named(1, "api")
        .await
        .map_err(Violation::setup(during))?;
    let (handlers, clock) = (subject.handler.clone(), Clock::default());
    let handler = move |pool: sqlx::PgPool, accepted: http_keys::PaymentRequest| {
        let attempt = crate::Attempt {
            provider: crate::ProviderClient::new(&pool, Behaviour::Answer),
            request: accepted,
            now: clock.now(),
        };
        kit::Handler::call(handlers.pay(), pool, attempt)
    };
    let serving = http_keys::server::Server::start_on(
        "127.0.0.1:0",
        pool.clone(),
        handler,
        crate::show_charge,
    );
    let server = serving.await.map_err(|e| {
        Violation::setup(during)(kit::KitError::Provision {
            what: "the payment API".into(),
            detail: e.to_string(),
        })
    })?;
    let (client, url) = (reqwest::Client::new(), server.url());
    let mut interleaving = (kit::Interleaving::new(&db).await).map_err(Violation::setup(during))?;
    let holder = (interleaving.session(&db, "holder").await).map_err(Violation::setup(during))?;
    for sql in [
        "INSERT INTO provider.customers VALUES ('acme')",
        "BEGIN; SELECT 1 FROM provider.customers WHERE id = 'acme' FOR UPDATE",
    ] {
        (interleaving.step(&holder, sql).await).map_err(Violation::setup(during))?;
    }
    let acme = {
        let (client, url) = (client.clone(), url.clone());
        let call = Call::payment("acme", "k-1", AMOUNT);
        interleaving.start(
            "api",
            &pool,
            "POST /payments (acme, k-1)",
            move |_| async move { http_keys::send(&client, &url, &call).await },
        )
    };
    let acme = acme.await.map_err(Violation::setup(during))?;
    let globex = http_keys::send(&client, &url, &Call::payment("globex", "k-1", AMOUNT)).await;
    interleaving.note(format!(
        "globex: POST /payments (globex, k-1): {}",
        http_keys::describe_answer(&globex)
    ));
    (interleaving.step(&holder, "COMMIT").await).map_err(Violation::setup(during))?;
    let acme = interleaving.finish(acme, http_keys::describe_answer).await;
    server.stop().await;
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
