//! Lesson 12's stories (work in progress: one, judged plainly; the lesson's violations come
//! later).

use chrono::TimeDelta;
use http_keys::Call;
use kit::{Subject, TestDatabase};

use crate::{Behaviour, Clock, Handler, Http, LEASE, Request};

/// The provider charges acme's card and hangs up before answering. acme's request gets a 503
/// (the outcome is not known yet); acme sends it again once the lease has run out, and the
/// provider is asked again under the same key: one charge at the provider, one in our books,
/// and the retry's 201 names the provider's charge.
pub async fn provider_hangs_up_then_retried<H: Handler>(subject: Subject<H>) -> Result<(), String> {
    let db = (TestDatabase::create(&subject.schema).await).map_err(|e| e.to_string())?;
    let pool = db.pool(1).await.map_err(|e| e.to_string())?;
    let clock = Clock::default();
    let http = Http {
        handler: subject.handler.clone(),
        clock: clock.clone(),
    };
    let call = Call::payment("acme", "k-1", 1500);
    let send = |provider| {
        kit::Handler::call(
            &http,
            pool.clone(),
            Request {
                provider,
                ..Request::now(&call)
            },
        )
    };
    let first = send(Behaviour::ChargeThenHangUp).await;
    clock.advance(LEASE + TimeDelta::seconds(1));
    let again = send(Behaviour::Answer).await;
    let count = |sql: &'static str| {
        let pool = pool.clone();
        async move { sqlx::query_scalar::<_, i64>(sql).fetch_one(&pool).await }
    };
    let at_provider = count("SELECT count(*) FROM provider.charges").await;
    let ours = count("SELECT count(*) FROM charges").await;
    let told = format!("first {first:?}, again {again:?}, provider {at_provider:?}, ours {ours:?}");
    match (&first, &again, at_provider, ours) {
        (Ok(first), Ok(again), Ok(1), Ok(1))
            if first.status == 503
                && first.retry_after.is_some()
                && again.status == 201
                && again.body.contains("\"provider_charge\":\"ch_1\"") =>
        {
            Ok(())
        }
        _ => Err(told),
    }
}

/// The zombie: acme's first request waits on a slow provider (a script holds acme's row there)
/// until its lease has run out. acme's retry arrives after the lease, takes the key over, and
/// waits on the provider too. Then the provider answers both, under the one derived key, with
/// the same charge. The first request wakes up a zombie: its phase 2 must write nothing. One
/// charge at the provider, one in our books, acme charged 1500 cents by our books.
pub async fn zombie_wakes_after_the_key_was_taken_over<H: Handler>(
    subject: Subject<H>,
) -> Result<(), String> {
    let db = (TestDatabase::create(&subject.schema).await).map_err(|e| e.to_string())?;
    let http = Http {
        handler: subject.handler.clone(),
        clock: Clock::default(),
    };
    let call = Call::payment("acme", "k-1", 1500);
    let retry = Request {
        later: LEASE + TimeDelta::seconds(1),
        ..Request::now(&call)
    };
    let script = kit::Script::new(&http, |r: &Request| {
        format!("POST /payments (acme, k-1), {:+}s", r.later.num_seconds())
    })
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
    .deliver("api-1", "first", Request::now(&call))
    .deliver("api-2", "retry", retry);
    let mut interleaving = (kit::Interleaving::new(&db).await).map_err(|e| e.to_string())?;
    let ran = interleaving
        .run(&db, script, "seed slow first retry release", |r| {
            format!("{r:?}")
        })
        .await
        .map_err(|e| e.to_string())?;
    let pool = db.pool(1).await.map_err(|e| e.to_string())?;
    let read = |sql: &'static str| {
        let pool = pool.clone();
        async move { sqlx::query_scalar::<_, i64>(sql).fetch_one(&pool).await }
    };
    let at_provider = read("SELECT count(*) FROM provider.charges").await;
    let ours = read("SELECT count(*) FROM charges").await;
    let charged = read("SELECT charged_cents FROM clients WHERE id = 'acme'").await;
    match (at_provider, ours, charged) {
        (Ok(1), Ok(1), Ok(1500)) => Ok(()),
        seen => Err(format!(
            "provider charges, our charges, acme's total: {seen:?}\n{}\n{:?}",
            interleaving.trace(),
            ran.outcomes
        )),
    }
}

/// acme's request charges at the provider and dies before it records the charge (killed while
/// its phase 2 waits for acme's row in `clients`, which a script holds). The completer runs once
/// the lease has run out, and acme retries after that: one charge at the provider, one in our
/// books, and the retry gets the completer's response, marked as a replay.
pub async fn dies_between_phases_then_completed<H, C, F>(
    subject: Subject<H>,
    complete: C,
) -> Result<(), String>
where
    H: Handler,
    C: Fn(sqlx::PgPool, crate::ProviderClient, chrono::DateTime<chrono::Utc>) -> F,
    F: std::future::Future<Output = Result<usize, sqlx::Error>>,
{
    let db = (TestDatabase::create(&subject.schema).await).map_err(|e| e.to_string())?;
    let clock = Clock::default();
    let http = Http {
        handler: subject.handler.clone(),
        clock: clock.clone(),
    };
    let call = Call::payment("acme", "k-1", 1500);
    let script = kit::Script::new(&http, |_: &Request| "POST /payments (acme, k-1)".into())
        .sql("holder", "seed", "INSERT INTO clients (id) VALUES ('acme')")
        .sql(
            "holder",
            "lock",
            "BEGIN; SELECT 1 FROM clients WHERE id = 'acme' FOR UPDATE",
        )
        .sql("holder", "commit", "COMMIT")
        .deliver("api-1", "first", Request::now(&call))
        .kill("die", "api-1");
    let mut interleaving = (kit::Interleaving::new(&db).await).map_err(|e| e.to_string())?;
    (interleaving
        .run(&db, script, "seed lock first die commit", |r| {
            format!("{r:?}")
        })
        .await)
        .map_err(|e| e.to_string())?;
    let pool = db.pool(2).await.map_err(|e| e.to_string())?;
    let after_lease = clock.now() + LEASE + TimeDelta::seconds(1);
    let provider = crate::ProviderClient::new(&pool, Behaviour::Answer);
    let completed = complete(pool.clone(), provider, after_lease).await;
    let retry = Request {
        later: LEASE + TimeDelta::seconds(2),
        ..Request::now(&call)
    };
    let again = kit::Handler::call(&http, pool.clone(), retry).await;
    let read = |sql: &'static str| {
        let pool = pool.clone();
        async move { sqlx::query_scalar::<_, i64>(sql).fetch_one(&pool).await }
    };
    let at_provider = read("SELECT count(*) FROM provider.charges").await;
    let ours = read("SELECT count(*) FROM charges").await;
    let charged = read("SELECT charged_cents FROM clients WHERE id = 'acme'").await;
    match (&again, at_provider, ours, charged) {
        (Ok(answer), Ok(1), Ok(1), Ok(1500)) if answer.status == 201 && answer.replayed => Ok(()),
        (again, at_provider, ours, charged) => Err(format!(
            "completer {completed:?}; retry {again:?}; provider charges {at_provider:?}, ours \
             {ours:?}, acme's total {charged:?}\n{}",
            interleaving.trace()
        )),
    }
}
