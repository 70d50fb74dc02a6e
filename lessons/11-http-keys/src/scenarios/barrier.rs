use super::{KEY, judge, prepare};
use crate::http::send;
use crate::judge::Sent;
use crate::server::Server;
use crate::{Call, Handler, Subject, Violation};

/// Rounds per barrier test, at the least. One round catches check-then-act only sometimes (how
/// often depends on the scheduler and the machine's load); many rounds, each a fresh client,
/// make a pass against the broken handler vanishingly unlikely. `cargo workbook repeat 11`
/// measures them on this lesson.
pub const BARRIER_ROUNDS: usize = 30;

/// Requests released in all the rounds of one barrier test, at the least: two requests overlap
/// far less often than thirty-two, so fewer play more rounds.
const REQUESTS_RELEASED: usize = 240;

/// How many rounds a barrier test with `workers` requests plays.
pub fn barrier_rounds(workers: usize) -> usize {
    BARRIER_ROUNDS.max(REQUESTS_RELEASED / workers.max(1))
}

/// What each request of a round carries, as a message tells it.
const CARRYING: &str = "the same payment under the same idempotency key, as a client's \
                        retries that all left before any answer came back";

// ANCHOR: barrier
/// `workers` requests wait at a barrier and are released together, all one client's payment
/// under one key, to one instance of the API with `workers` connections; the client must be
/// charged once, and every answer be the first response or a 409. Repeated for
/// [`barrier_rounds`] rounds, a fresh client each; the first round that catches a violation ends
/// the test.
pub async fn barrier<H: Handler>(subject: Subject<H>, workers: usize) -> Result<(), Violation> {
    let rounds = kit::Rounds::new(workers, CARRYING, barrier_rounds(workers));
    let setup = rounds.set_up();
    let (db, payments) = prepare(&subject, setup).await?;
    let pool = rounds.pool(&db).await?;
    let server = (Server::start(pool, subject.handler.clone()).await).map_err(|e| {
        Violation::setup(setup)(kit::KitError::Provision {
            what: "the payment API".into(),
            detail: e.to_string(),
        })
    })?;
    let url = server.url();
    let client = reqwest::Client::new();
    for during in rounds.each() {
        let call = Call::payment(&format!("client-{}", during.round()), KEY, 1500);
        let outcomes = kit::release_together(workers, |_| {
            let (client, url, call) = (client.clone(), url.clone(), call.clone());
            async move { send(&client, &url, &call).await }
        })
        .await;
        let sent: Vec<Sent> = (outcomes.into_iter())
            .map(|outcome| Sent::new(&call, outcome))
            .collect();
        judge(&payments, &call.client, &sent, during, true, None).await?;
    }
    server.stop().await;
    Ok(())
}
// ANCHOR_END: barrier
