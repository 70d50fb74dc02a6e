//! A scripted request of lesson 12: lesson 11's API, in front of a handler that charges at the
//! provider, for one connection, served inside the worker's future (a script that abandons the
//! worker drops the request, and the provider call within it, where they are).

use std::future::Future;

use http_keys::{Answer, Call, PaymentRequest, Reply, ServerError, send};
use sqlx::PgPool;

use crate::{Attempt, Behaviour, Clock, ProviderClient};

/// Lesson 12's handlers: `create_payment(&PgPool, &Attempt)`.
pub trait Handler: kit::Handler<Attempt, Output = Result<Reply, sqlx::Error>> {}

impl<H> Handler for H where H: kit::Handler<Attempt, Output = Result<Reply, sqlx::Error>> {}

/// A request, what the provider does with the charge it leads to, and how long after the API's
/// clock says now it arrives (a script's way to send a retry once a lease has run out).
#[derive(Debug, Clone)]
pub struct Request {
    pub call: Call,
    pub provider: Behaviour,
    pub later: chrono::TimeDelta,
}

impl Request {
    /// `call`, arriving now, to a provider that answers.
    pub fn now(call: &Call) -> Request {
        Request {
            call: call.clone(),
            provider: Behaviour::Answer,
            later: chrono::TimeDelta::zero(),
        }
    }
}

/// The handler under test behind the API, as a kit handler of scripted [`Request`]s, with the
/// API's clock.
#[derive(Clone)]
pub struct Http<H> {
    pub handler: H,
    pub clock: Clock,
}

impl<H: Handler> kit::Handler<Request> for Http<H> {
    type Output = Result<Answer, ServerError>;

    fn call(
        &self,
        pool: PgPool,
        request: Request,
    ) -> impl Future<Output = Self::Output> + Send + 'static + use<H> {
        let (handler, clock, behaviour) =
            (self.handler.clone(), self.clock.clone(), request.provider);
        let later = request.later;
        let attempt = move |pool: PgPool, accepted: PaymentRequest| {
            let attempt = Attempt {
                provider: ProviderClient::new(&pool, behaviour),
                request: accepted,
                now: clock.now() + later,
            };
            kit::Handler::call(&handler, pool, attempt)
        };
        async move {
            let (url, serving) =
                (http_keys::server::one_connection(pool, attempt).await).map_err(|e| {
                    ServerError {
                        status: None,
                        sqlstate: None,
                        detail: format!("the API could not start: {e}"),
                    }
                })?;
            let client = reqwest::Client::new();
            tokio::select! {
                answer = send(&client, &url, &request.call) => answer,
                () = serving => Err(ServerError {
                    status: None,
                    sqlstate: None,
                    detail: "the API closed the connection without an answer".into(),
                }),
            }
        }
    }
}
