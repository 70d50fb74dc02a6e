use kit::Script;

use super::{CLIENT, KEY, OTHER_AMOUNT, judge, payment, prepare, send_each, shown};
use crate::http::describe;
use crate::judge::Sent;
use crate::observe::Payments;
use crate::{Call, Delivery, Handler, Http, Subject, Violation};

/// The holder's lock on acme's row: a request of acme's stops as it charges acme, with whatever
/// it did before (its claim on the key, say) done and not committed.
pub(super) const LOCK_ACME: &str = "BEGIN; SELECT 1 FROM clients WHERE id = 'acme' FOR UPDATE";

// ANCHOR: retry_races
/// The client's retry reaches a second instance of the API while the first request is inside
/// its transaction (its first response is late, and the client's timeout shorter). The retry
/// must not create a second payment, and must answer with the first request's response (or a
/// 409 that says when to come back).
pub async fn retry_races_an_uncommitted_first<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    raced(
        subject,
        payment(),
        Delivery::Story(
            "acme's retry reached a second instance of the API while its first request was \
             inside its transaction (a scripted interleaving)",
        ),
    )
    .await
}
// ANCHOR_END: retry_races

// ANCHOR: another_request_races
/// The same race with a different request under the key: a second payment the client reused
/// the key for. Waiting for the first request, then sending its response, answers a request
/// that was never made; it must be refused (422), however it arrived.
pub async fn another_request_races_an_uncommitted_first<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    raced(
        subject,
        Call::payment(CLIENT, KEY, OTHER_AMOUNT),
        Delivery::Story(
            "acme sent a payment of another amount under the same key while its first request \
             was inside its transaction (a scripted interleaving)",
        ),
    )
    .await
}
// ANCHOR_END: another_request_races

async fn raced<H: Handler>(
    subject: Subject<H>,
    second: Call,
    during: Delivery,
) -> Result<(), Violation> {
    let (db, payments) = prepare(&subject, during).await?;
    let first = payment();
    // ANCHOR: race_script
    let script = Script::new(&Http(subject.handler.clone()), shown)
        .sql("holder", "lock", LOCK_ACME)
        .sql("holder", "commit", "COMMIT")
        .deliver("api-1", "first", first.clone())
        .deliver("api-2", "again", second.clone());
    let permutation = "lock first again commit";
    // ANCHOR_END: race_script
    let (mut interleaving, ran) = kit::play(&db, script, permutation, describe, during).await?;
    let sent = sent_by(ran.outcomes, &[("api-1", &first), ("api-2", &second)]);
    judge_the_race(&payments, &sent, during, &mut interleaving).await
}

// ANCHOR: stops_waiting
/// The retry waits for the first request longer than the API lets a request wait: its
/// statement is cancelled (57014, as statement_timeout cancels it) while the first request is
/// still inside its transaction. Nothing is known yet about the first request, so the retry is
/// told to come back (409, with Retry-After); and when it does, once the first request has
/// finished, it gets the response.
pub async fn retry_stops_waiting_for_the_first<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme's retry reached a second instance of the API while its first request was inside \
         its transaction, stopped waiting for it (its statement cancelled, as a timeout \
         would), and acme sent it again once the first had finished (a scripted interleaving)",
    );
    let (db, payments) = prepare(&subject, during).await?;
    let call = payment();
    let script = Script::new(&Http(subject.handler.clone()), shown)
        .sql("holder", "lock", LOCK_ACME)
        .sql("holder", "commit", "COMMIT")
        .deliver("api-1", "first", call.clone())
        .deliver("api-2", "again", call.clone())
        .cancel("timeout", "api-2");
    let permutation = "lock first again timeout commit";
    // ANCHOR_END: stops_waiting
    let (mut interleaving, ran) = kit::play(&db, script, permutation, describe, during).await?;
    let mut sent = sent_by(ran.outcomes, &[("api-1", &call), ("api-2", &call)]);
    // Every request of the script has finished: the client comes back.
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let later = send_each(&subject, &pool, std::slice::from_ref(&call)).await;
    for again in &later {
        interleaving.note(format!("acme sent it again: {}", describe(&again.outcome)));
    }
    sent.extend(later);
    judge_the_race(&payments, &sent, during, &mut interleaving).await
}

/// A race's end: acme's requests under its key judged, with what the payments table holds
/// noted in the trace; a pass offers the trace to the chapters.
pub(super) async fn judge_the_race(
    payments: &Payments,
    sent: &[Sent],
    during: Delivery,
    interleaving: &mut kit::Interleaving,
) -> Result<(), Violation> {
    judge(
        payments,
        CLIENT,
        sent,
        during,
        true,
        Some(&mut *interleaving),
    )
    .await?;
    kit::passing_trace(interleaving.trace());
    Ok(())
}

/// Each worker's outcome with the request it sent, in the order the requests were sent.
pub(super) fn sent_by(
    outcomes: kit::Outcomes<Result<crate::Answer, crate::ServerError>>,
    calls: &[(&str, &Call)],
) -> Vec<Sent> {
    (calls.iter())
        .filter_map(|(worker, call)| {
            (outcomes.iter())
                .find(|(name, _)| name == worker)
                .map(|(_, outcome)| Sent::new(call, outcome.clone()))
        })
        .collect()
}
