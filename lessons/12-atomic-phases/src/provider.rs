//! The card provider: another company's API, which lesson 12's handler calls to charge a card
//! (`POST /v1/charges`). No transaction of ours can take its charge back.
//!
//! It is idempotent on the `Idempotency-Key` its caller sends, as Stripe is: a second request
//! with a key it has seen gets the first charge back, and charges nothing. It keeps its rules
//! too: a key is at most [`MAX_KEY_CHARS`] characters, a key sent again with other parameters is
//! refused, and a key is remembered for good (longer than any window of ours: Stripe's v2 API
//! keeps keys 30 days). Its ledger, and a log of what it refused and why, are the schema
//! `provider` of the test's database, which the handler never touches and the tests read.
//!
//! What it does with a request is the test's to choose ([`Behaviour`]): answer, fail before
//! charging, or charge and then hang up before answering, the case that leaves its caller
//! unable to tell whether it charged. A script makes it slow by holding the customer's row,
//! which it locks before charging: its connection carries the caller's `application_name`
//! (see [`one_connection`]), so the kit sees the caller waiting on the script.

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, PgPool};
use tokio::net::TcpListener;
use tokio::sync::Notify;

/// The longest idempotency key the provider accepts, as at Stripe ("up to 255 characters").
pub const MAX_KEY_CHARS: usize = 255;

/// What the provider does with the requests of one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// Charges (once per key) and answers 200 with the charge.
    Answer,
    /// Fails before charging anything: 500, as an outage would.
    Fail,
    /// Charges, commits, and closes the connection without a word: the caller sees its request
    /// fail, and cannot tell from that whether the card was charged.
    ChargeThenHangUp,
}

/// A charge as the provider asks for it and shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChargeRequest {
    pub customer: String,
    pub amount_cents: i64,
    pub currency: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Charge {
    /// `ch_17`.
    pub id: String,
    pub customer: String,
    pub amount_cents: i64,
    pub currency: String,
}

/// Why a call to the provider did not give a charge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderError {
    /// No answer: the connection failed or was closed. The charge may have been made.
    NoAnswer(String),
    /// An answer that is not a charge: nothing was charged (the provider promises so).
    Refused { status: u16, body: String },
}

/// The provider, as the handler sees it: `provider.charge(key, request)`. Each call reaches an
/// API of its own (see [`one_connection`]), which behaves as the test chose, on a session opened
/// with the caller's connection options.
#[derive(Debug, Clone)]
pub struct ProviderClient {
    options: sqlx::postgres::PgConnectOptions,
    behaviour: Behaviour,
}

impl ProviderClient {
    /// The provider for a caller whose pool is `pool`, behaving as `behaviour` says.
    pub fn new(pool: &PgPool, behaviour: Behaviour) -> ProviderClient {
        ProviderClient {
            options: pool.connect_options().as_ref().clone(),
            behaviour,
        }
    }

    /// Charges `request` under `key`: the charge (made now, or made before under the same key),
    /// or why there is none to show. [`ProviderError::NoAnswer`] does not mean "not charged".
    pub async fn charge(
        &self,
        key: &str,
        request: &ChargeRequest,
    ) -> Result<Charge, ProviderError> {
        self.send(Some(key), request).await
    }

    /// Charges `request` with no key of the caller's: the provider makes a new charge every
    /// time it is asked (the shipped exercise calls it so).
    pub async fn charge_without_key(
        &self,
        request: &ChargeRequest,
    ) -> Result<Charge, ProviderError> {
        self.send(None, request).await
    }

    async fn send(
        &self,
        key: Option<&str>,
        request: &ChargeRequest,
    ) -> Result<Charge, ProviderError> {
        let unreachable = |e: &dyn std::fmt::Display| ProviderError::NoAnswer(e.to_string());
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(1)
            .connect_with(self.options.clone())
            .await
            .map_err(|e| unreachable(&e))?;
        let (url, serving) =
            (one_connection(pool.clone(), self.behaviour).await).map_err(|e| unreachable(&e))?;
        let client = reqwest::Client::new();
        let answer = tokio::select! {
            answer = charge(&client, &url, key, request) => answer,
            () = serving => Err(ProviderError::NoAnswer("the provider closed the connection".into())),
        };
        pool.close().await;
        answer
    }
}

#[derive(Clone)]
struct Provider {
    pool: PgPool,
    behaviour: Behaviour,
    hang_up: Arc<Notify>,
}

/// The provider's API on an ephemeral port of 127.0.0.1, for one connection, served by the
/// returned future in whatever task awaits it, as lesson 11's scripted API is: dropping that
/// future drops the request where it is. `pool` should be opened from the caller's own pool's
/// options, so that the provider's session carries the caller's `application_name`.
pub async fn one_connection(
    pool: PgPool,
    behaviour: Behaviour,
) -> std::io::Result<(String, impl Future<Output = ()> + Send)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    let hang_up = Arc::new(Notify::new());
    let app = Router::new()
        .route("/v1/charges", post(create_charge))
        .with_state(Provider {
            pool,
            behaviour,
            hang_up: hang_up.clone(),
        });
    let service = hyper_util::service::TowerToHyperService::new(app);
    let serving = async move {
        let Ok((stream, _)) = listener.accept().await else {
            return;
        };
        let io = hyper_util::rt::TokioIo::new(stream);
        let connection = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
        // Hanging up is dropping the connection, the request it was handling with it.
        tokio::select! {
            _ = connection => {}
            () = hang_up.notified() => {}
        }
    };
    Ok((url, serving))
}

async fn create_charge(
    State(provider): State<Provider>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    // Optional, as at Stripe: without one, every request is a new charge.
    let key = headers.get("idempotency-key").and_then(|v| v.to_str().ok());
    let Ok(request) = serde_json::from_slice::<ChargeRequest>(&body) else {
        return (StatusCode::BAD_REQUEST, "the body is not a charge").into_response();
    };
    let logged = sqlx::query("INSERT INTO provider.calls (idempotency_key) VALUES ($1)")
        .bind(key)
        .execute(&provider.pool)
        .await;
    if let Err(error) = logged {
        let failed = format!("the provider failed: {}", kit::describe_sqlx(&error));
        return (StatusCode::INTERNAL_SERVER_ERROR, failed).into_response();
    }
    if let Some(key) = key.filter(|key| key.chars().count() > MAX_KEY_CHARS) {
        let reason = format!(
            "the idempotency key is {} characters long; the provider takes at most {MAX_KEY_CHARS}",
            key.chars().count()
        );
        return refuse(&provider.pool, key, &request.customer, reason).await;
    }
    if provider.behaviour == Behaviour::Fail {
        // Slow first, when a script holds the customer (a provider that times out inside is
        // slow and then fails), and then nothing charged.
        if let Err(error) = wait_for_customer(&provider.pool, &request.customer).await {
            let failed = format!("the provider failed: {}", kit::describe_sqlx(&error));
            return (StatusCode::INTERNAL_SERVER_ERROR, failed).into_response();
        }
        return (StatusCode::INTERNAL_SERVER_ERROR, "the provider is down").into_response();
    }
    let charged = charge_once(&provider.pool, key, &request).await;
    match (charged, provider.behaviour) {
        (Ok(_), Behaviour::ChargeThenHangUp) => {
            provider.hang_up.notify_one();
            std::future::pending().await
        }
        (Ok(Some(charge)), _) => (
            [("content-type", "application/json")],
            serde_json::to_string(&charge).expect("a charge is JSON"),
        )
            .into_response(),
        // Stripe's answer to a key sent again with other parameters: an idempotency error.
        (Ok(None), _) => {
            let reason = "the key was used for another charge".to_string();
            refuse(
                &provider.pool,
                key.unwrap_or_default(),
                &request.customer,
                reason,
            )
            .await
        }
        (Err(error), _) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the provider failed: {}", kit::describe_sqlx(&error)),
        )
            .into_response(),
    }
}

/// A 400 that charges nothing, written to the provider's log of refusals first, so that a test
/// can say why a charge was never made.
async fn refuse(pool: &PgPool, key: &str, customer: &str, reason: String) -> Response {
    let logged = sqlx::query(
        "INSERT INTO provider.refusals (idempotency_key, customer, reason) VALUES ($1, $2, $3)",
    )
    .bind(key)
    .bind(customer)
    .bind(&reason)
    .execute(pool)
    .await;
    match logged {
        Ok(_) => (
            StatusCode::BAD_REQUEST,
            format!("idempotency_error: {reason}"),
        )
            .into_response(),
        Err(error) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the provider failed: {}", kit::describe_sqlx(&error)),
        )
            .into_response(),
    }
}

/// The customer's row, locked for the transaction: a script holds it to keep the provider busy,
/// as a slow provider would be, without a timer.
async fn lock_customer(tx: &mut PgConnection, customer: &str) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO provider.customers (id) VALUES ($1) ON CONFLICT DO NOTHING")
        .bind(customer)
        .execute(&mut *tx)
        .await?;
    sqlx::query("SELECT 1 FROM provider.customers WHERE id = $1 FOR UPDATE")
        .bind(customer)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// Waits for the customer's row as a charge would, and charges nothing.
async fn wait_for_customer(pool: &PgPool, customer: &str) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    lock_customer(&mut tx, customer).await?;
    tx.rollback().await
}

/// How the provider's own key for a charge asked without one begins, as `charge_once` writes
/// it: the judge counts them.
pub(crate) const KEYLESS: &str = "none-";

/// Charges once per key: the key's charge, new or as made the first time, or `None` when the
/// key was first used for another charge.
async fn charge_once(
    pool: &PgPool,
    key: Option<&str>,
    request: &ChargeRequest,
) -> Result<Option<Charge>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    lock_customer(&mut tx, &request.customer).await?;
    // Without a key, one of the provider's own: a charge nobody can ask for again.
    let key: String = match key {
        Some(key) => key.to_string(),
        None => {
            sqlx::query_scalar("SELECT 'none-' || gen_random_uuid()")
                .fetch_one(&mut *tx)
                .await?
        }
    };
    sqlx::query(
        "INSERT INTO provider.charges (idempotency_key, customer, amount_cents, currency)
         VALUES ($1, $2, $3, $4) ON CONFLICT (idempotency_key) DO NOTHING",
    )
    .bind(&key)
    .bind(&request.customer)
    .bind(request.amount_cents)
    .bind(&request.currency)
    .execute(&mut *tx)
    .await?;
    let (id, customer, amount_cents, currency): (i64, String, i64, String) = sqlx::query_as(
        "SELECT id, customer, amount_cents, currency FROM provider.charges
          WHERE idempotency_key = $1",
    )
    .bind(&key)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    let charge = Charge {
        id: format!("ch_{id}"),
        customer,
        amount_cents,
        currency,
    };
    let same = (&charge.customer, charge.amount_cents, &charge.currency)
        == (&request.customer, request.amount_cents, &request.currency);
    Ok(same.then_some(charge))
}

/// Asks the provider at `url` to charge, under `key`, as the handler does.
pub async fn charge(
    client: &reqwest::Client,
    url: &str,
    key: Option<&str>,
    request: &ChargeRequest,
) -> Result<Charge, ProviderError> {
    let mut post = client.post(format!("{url}/v1/charges"));
    if let Some(key) = key {
        post = post.header("idempotency-key", key);
    }
    let response = post
        .header("content-type", "application/json")
        .body(serde_json::to_string(request).expect("a charge request is JSON"))
        .send()
        .await
        .map_err(|e| ProviderError::NoAnswer(e.to_string()))?;
    let status = response.status().as_u16();
    let body = (response.text().await).map_err(|e| ProviderError::NoAnswer(e.to_string()))?;
    if status != 200 {
        return Err(ProviderError::Refused { status, body });
    }
    serde_json::from_str(&body).map_err(|_| ProviderError::Refused { status, body })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../migrations/atomic_phases"
    );

    fn request(amount_cents: i64) -> ChargeRequest {
        ChargeRequest {
            customer: "acme".into(),
            amount_cents,
            currency: "eur".into(),
        }
    }

    /// One call, through an API of its own that behaves as told, as the handler makes it.
    async fn call(
        pool: &PgPool,
        behaviour: Behaviour,
        key: &str,
        amount: i64,
    ) -> Result<Charge, ProviderError> {
        let (url, serving) = one_connection(pool.clone(), behaviour).await.unwrap();
        let (client, request) = (reqwest::Client::new(), request(amount));
        tokio::select! {
            answer = charge(&client, &url, Some(key), &request) => answer,
            () = serving => Err(ProviderError::NoAnswer("served without answering".into())),
        }
    }

    async fn charges(pool: &PgPool) -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM provider.charges")
            .fetch_one(pool)
            .await
            .unwrap()
    }

    async fn database() -> (kit::TestDatabase, PgPool) {
        let db = kit::TestDatabase::create(&kit::Schema::from_dirs([BASE]))
            .await
            .unwrap();
        let pool = db.pool(2).await.unwrap();
        (db, pool)
    }

    #[tokio::test]
    async fn a_key_charges_once_and_answers_every_retry_with_that_charge() {
        let (_db, pool) = database().await;
        let first = call(&pool, Behaviour::Answer, "k-1", 1500).await.unwrap();
        let again = call(&pool, Behaviour::Answer, "k-1", 1500).await.unwrap();
        assert_eq!(first, again);
        assert_eq!(charges(&pool).await, 1);
        let other = call(&pool, Behaviour::Answer, "k-1", 2500).await;
        assert!(matches!(
            other,
            Err(ProviderError::Refused { status: 400, .. })
        ));
    }

    /// Stripe's limit: a key of 255 characters charges, one of 256 is refused, and said so.
    #[tokio::test]
    async fn a_key_longer_than_255_characters_is_refused_and_logged() {
        let (_db, pool) = database().await;
        let longest = call(&pool, Behaviour::Answer, &"k".repeat(255), 1500).await;
        assert!(longest.is_ok(), "{longest:?}");
        let over = call(&pool, Behaviour::Answer, &"k".repeat(256), 1500).await;
        assert!(
            matches!(&over, Err(ProviderError::Refused { status: 400, body }) if body.contains("256")),
            "{over:?}"
        );
        assert_eq!(charges(&pool).await, 1);
        let reason: String = sqlx::query_scalar("SELECT reason FROM provider.refusals")
            .fetch_one(&pool)
            .await
            .unwrap();
        assert!(reason.contains("at most 255"), "{reason}");
    }

    #[tokio::test]
    async fn a_failure_charges_nothing() {
        let (_db, pool) = database().await;
        let failed = call(&pool, Behaviour::Fail, "k-1", 1500).await;
        assert!(matches!(
            failed,
            Err(ProviderError::Refused { status: 500, .. })
        ));
        assert_eq!(charges(&pool).await, 0);
    }

    /// A script makes the provider slow by holding the customer's row, and sees the caller
    /// wait: the provider's session carries the caller's application_name.
    #[tokio::test]
    async fn a_script_sees_a_caller_wait_on_a_slow_provider() {
        let (db, _pool) = database().await;
        let caller = |pool: PgPool, (): ()| async move {
            let options = pool.connect_options().as_ref().clone();
            let provider_pool = sqlx::postgres::PgPoolOptions::new()
                .max_connections(1)
                .connect_with(options)
                .await
                .map_err(|e| ProviderError::NoAnswer(e.to_string()))?;
            call(&provider_pool, Behaviour::Answer, "k-1", 1500).await
        };
        let script = kit::Script::new(&caller, |()| "charge acme".into())
            .sql(
                "holder",
                "seed",
                "INSERT INTO provider.customers VALUES ('acme')",
            )
            .sql(
                "holder",
                "hold",
                "BEGIN; SELECT 1 FROM provider.customers WHERE id = 'acme' FOR UPDATE",
            )
            .sql("holder", "release", "COMMIT")
            .deliver("api-1", "charge", ());
        let mut interleaving = kit::Interleaving::new(&db).await.unwrap();
        let ran = interleaving
            .run(&db, script, "seed hold charge release", |r| {
                format!("{r:?}")
            })
            .await
            .unwrap();
        assert!(ran.waited("api-1"), "{}", interleaving.trace());
        assert!(matches!(&ran.outcomes[..], [(_, Ok(charge))] if charge.id == "ch_1"));
    }

    /// The case the lesson is about: no answer, and yet a charge.
    #[tokio::test]
    async fn a_hang_up_leaves_the_caller_without_an_answer_and_the_card_charged() {
        let (_db, pool) = database().await;
        let hung_up = call(&pool, Behaviour::ChargeThenHangUp, "k-1", 1500).await;
        assert!(
            matches!(hung_up, Err(ProviderError::NoAnswer(_))),
            "{hung_up:?}"
        );
        assert_eq!(charges(&pool).await, 1);
        // The retry, under the same key, learns of the charge and makes none.
        let retry = call(&pool, Behaviour::Answer, "k-1", 1500).await.unwrap();
        assert_eq!((retry.id.as_str(), charges(&pool).await), ("ch_1", 1));
    }
}
