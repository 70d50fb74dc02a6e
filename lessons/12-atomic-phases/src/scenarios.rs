//! Lesson 12's stories, each judged by the rule in judge.rs: one charge at the provider, one in
//! our books, every "not done" answer saying when to come back, and the client's last answer
//! the payment.

use std::future::Future;

use chrono::{DateTime, TimeDelta, Utc};
use http_keys::{Answer, Call, ServerError};
use kit::{Subject, TestDatabase};
use sqlx::PgPool;

use crate::judge::{Books, verdict};
use crate::{Behaviour, Clock, Delivery, Handler, Http, LEASE, ProviderClient, Request, Violation};

/// The amount every scenario's request asks for.
const AMOUNT: i64 = 1500;

fn payment() -> Call {
    Call::payment("acme", "k-1", AMOUNT)
}

/// How a trace shows a request: `POST /payments (acme, k-1), +31s`.
fn shown(request: &Request) -> String {
    format!(
        "POST /payments (acme, k-1), {:+}s",
        request.later.num_seconds()
    )
}

fn describe(outcome: &Result<Answer, ServerError>) -> String {
    http_keys::describe_answer(outcome)
}

async fn prepare<H: Handler>(
    subject: &Subject<H>,
    during: Delivery,
) -> Result<TestDatabase, Violation> {
    TestDatabase::create(&subject.schema)
        .await
        .map_err(Violation::setup(during))
}

async fn judge(
    db: &TestDatabase,
    answers: &[Result<Answer, ServerError>],
    replay_last: bool,
    during: Delivery,
    trace: Option<&kit::Trace>,
) -> Result<(), Violation> {
    let books = Books::read(db).await.map_err(Violation::setup(during))?;
    verdict(books, AMOUNT, answers, replay_last).map_err(Violation::caught(during, trace))
}

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
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let http = Http {
        handler: subject.handler.clone(),
        clock: Clock::default(),
    };
    let first = Request {
        provider: Behaviour::ChargeThenHangUp,
        ..Request::now(&payment())
    };
    let retry = Request {
        later: LEASE + TimeDelta::seconds(1),
        ..Request::now(&payment())
    };
    let mut answers = Vec::new();
    for request in [first, retry] {
        answers.push(kit::Handler::call(&http, pool.clone(), request).await);
    }
    judge(&db, &answers, false, during, None).await
}

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
    let http = Http {
        handler: subject.handler.clone(),
        clock: Clock::default(),
    };
    let retry = Request {
        later: LEASE + TimeDelta::seconds(1),
        ..Request::now(&payment())
    };
    let script = kit::Script::new(&http, shown)
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
        .deliver("api-1", "first", Request::now(&payment()))
        .deliver("api-2", "retry", retry);
    let (interleaving, ran) = kit::play(
        &db,
        script,
        "seed slow first retry release",
        describe,
        during,
    )
    .await?;
    let answers: Vec<_> = ran.outcomes.into_iter().map(|(_, answer)| answer).collect();
    // Either request may be the one that records: the other must be told to come back.
    let last_is_payment = answers
        .iter()
        .any(|a| a.as_ref().is_ok_and(|a| a.status == 201));
    let answers: Vec<_> = if last_is_payment {
        let (paid, other): (Vec<_>, Vec<_>) =
            (answers.into_iter()).partition(|a| a.as_ref().is_ok_and(|a| a.status == 201));
        other.into_iter().chain(paid).collect()
    } else {
        answers
    };
    judge(&db, &answers, false, during, Some(interleaving.trace())).await
}

/// acme's request charges at the provider and dies before it records the charge (killed while
/// its last phase waits for acme's row in `clients`, which a script holds). The completer runs
/// once the lease has run out, and acme retries after that: the retry gets the completer's
/// response, marked as a replay.
pub async fn dies_between_phases_then_completed<H, C, F>(
    subject: Subject<H>,
    complete: C,
) -> Result<(), Violation>
where
    H: Handler,
    C: Fn(PgPool, ProviderClient, DateTime<Utc>) -> F,
    F: Future<Output = Result<usize, sqlx::Error>>,
{
    let during = Delivery::Story(
        "acme's request died after the provider charged and before it recorded the charge (a \
         scripted crash); the completer ran once the lease had run out, and acme retried",
    );
    let db = prepare(&subject, during).await?;
    let clock = Clock::default();
    let http = Http {
        handler: subject.handler.clone(),
        clock: clock.clone(),
    };
    let script = kit::Script::new(&http, shown)
        .sql("holder", "seed", "INSERT INTO clients (id) VALUES ('acme')")
        .sql(
            "holder",
            "lock",
            "BEGIN; SELECT 1 FROM clients WHERE id = 'acme' FOR UPDATE",
        )
        .sql("holder", "commit", "COMMIT")
        .deliver("api-1", "first", Request::now(&payment()))
        .kill("die", "api-1");
    let (interleaving, _) =
        kit::play(&db, script, "seed lock first die commit", describe, during).await?;
    let pool = db.pool(2).await.map_err(Violation::setup(during))?;
    let provider = ProviderClient::new(&pool, Behaviour::Answer);
    let completed = complete(
        pool.clone(),
        provider,
        clock.now() + LEASE + TimeDelta::seconds(1),
    );
    if let Err(error) = completed.await {
        return Err(Violation::caught(during, Some(interleaving.trace()))(
            crate::ViolationKind::Common(kit::Common::failed(&error)),
        ));
    }
    let retry = Request {
        later: LEASE + TimeDelta::seconds(2),
        ..Request::now(&payment())
    };
    let answers = [kit::Handler::call(&http, pool.clone(), retry).await];
    judge(&db, &answers, true, during, Some(interleaving.trace())).await
}

/// The provider fails before charging (a 500: it promises it charged nothing). acme is told to
/// come back; its retry within the lease is told the same (the first attempt's lease still
/// holds the key); its retry after the lease pays, once.
pub async fn provider_fails_then_retried<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "the provider failed before charging, acme retried at once, and again once the lease \
         had run out",
    );
    let db = prepare(&subject, during).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let http = Http {
        handler: subject.handler.clone(),
        clock: Clock::default(),
    };
    let failing = Request {
        provider: Behaviour::Fail,
        ..Request::now(&payment())
    };
    let after_lease = Request {
        later: LEASE + TimeDelta::seconds(1),
        ..Request::now(&payment())
    };
    let mut answers = Vec::new();
    for request in [failing, Request::now(&payment()), after_lease] {
        answers.push(kit::Handler::call(&http, pool.clone(), request).await);
    }
    judge(&db, &answers, false, during, None).await
}
