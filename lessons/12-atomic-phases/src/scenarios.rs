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
                call: call.clone(),
                provider,
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
