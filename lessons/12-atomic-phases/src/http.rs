//! A scripted request of lesson 12: lesson 11's API, in front of a handler that charges at the
//! provider, for one connection, served inside the worker's future (a script that abandons the
//! worker drops the request, and the provider call within it, where they are).

use std::future::Future;

use chrono::{DateTime, TimeDelta, Utc};
use http_keys::{Answer, Call, PaymentRequest, Reply, ServerError};
use sqlx::PgPool;

use crate::{Attempt, Behaviour, Clock, ProviderClient};

/// What the completer is given: the provider to ask again, and the time by the API's clock.
#[derive(Debug, Clone)]
pub struct Completion {
    pub provider: ProviderClient,
    pub now: DateTime<Utc>,
}

/// A crate's two functions, as the scenarios call them: `create_payment(&PgPool, &Attempt)`
/// behind the API, and `complete(&PgPool, &Completion)`, the completer.
#[derive(Clone)]
pub struct Handlers<P, C> {
    pub pay: P,
    pub complete: C,
}

/// Lesson 12's subjects: a crate's [`Handlers`].
pub trait Handler: Clone + Send + Sync + 'static {
    type Pay: kit::Handler<Attempt, Output = Result<Reply, sqlx::Error>>;
    type Complete: kit::Handler<Completion, Output = Result<usize, sqlx::Error>>;
    fn pay(&self) -> &Self::Pay;
    fn complete(&self) -> &Self::Complete;
}

impl<P, C> Handler for Handlers<P, C>
where
    P: kit::Handler<Attempt, Output = Result<Reply, sqlx::Error>>,
    C: kit::Handler<Completion, Output = Result<usize, sqlx::Error>>,
{
    type Pay = P;
    type Complete = C;
    fn pay(&self) -> &P {
        &self.pay
    }
    fn complete(&self) -> &C {
        &self.complete
    }
}

/// One step a script hands to a worker: a client's request, or a run of the completer, each
/// `later` than the API's clock says now.
#[derive(Debug, Clone)]
pub enum Step {
    Request(Request),
    Complete { later: TimeDelta },
}

/// What a step came to: the API's answer to a request, or how many keys the completer
/// finished.
#[derive(Debug, Clone)]
pub enum Outcome {
    Answered(Result<Answer, ServerError>),
    Completed(Result<usize, String>),
}

/// A request, what the provider does with the charge it leads to, and how long after the API's
/// clock says now it arrives (a script's way to send a retry once a lease has run out).
#[derive(Debug, Clone)]
pub struct Request {
    pub call: Call,
    pub provider: Behaviour,
    pub later: TimeDelta,
}

impl Request {
    /// `call`, arriving now, to a provider that answers.
    pub fn now(call: &Call) -> Request {
        Request {
            call: call.clone(),
            provider: Behaviour::Answer,
            later: TimeDelta::zero(),
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

impl<H: Handler> kit::Handler<Step> for Http<H> {
    type Output = Outcome;

    fn call(
        &self,
        pool: PgPool,
        step: Step,
    ) -> impl Future<Output = Outcome> + Send + 'static + use<H> {
        let (handlers, clock) = (self.handler.clone(), self.clock.clone());
        async move {
            match step {
                Step::Request(request) => {
                    Outcome::Answered(answer(handlers, clock, pool, request).await)
                }
                Step::Complete { later } => {
                    let completion = Completion {
                        provider: ProviderClient::new(&pool, Behaviour::Answer),
                        now: clock.now() + later,
                    };
                    let done = kit::Handler::call(handlers.complete(), pool, completion).await;
                    Outcome::Completed(done.map_err(|e| kit::describe_sqlx(&e)))
                }
            }
        }
    }
}

/// `request`, through lesson 11's API served for its one connection, in front of the crate's
/// `create_payment`.
async fn answer<H: Handler>(
    handlers: H,
    clock: Clock,
    pool: PgPool,
    request: Request,
) -> Result<Answer, ServerError> {
    let (behaviour, later) = (request.provider, request.later);
    let attempt = move |pool: PgPool, accepted: PaymentRequest| {
        let attempt = Attempt {
            provider: ProviderClient::new(&pool, behaviour),
            request: accepted,
            now: clock.now() + later,
        };
        kit::Handler::call(handlers.pay(), pool, attempt)
    };
    http_keys::answered(pool, attempt, crate::show_charge, &request.call).await
}
