//! The lesson's scripted races and faults are data, `specs/*.spec`, and this is how every one of
//! them is played, a student's own included (`cargo workbook break 11`): a fresh database with
//! the API in front of the handler for each request; the spec's setup; the sessions in its order
//! (the kit's engine), each request sent over HTTP; then the rule (`judge.rs`) judges acme's
//! payments and every answer its client acted on.

use kit::spec::{Action, NoWait, Run, Spec, SpecError};
use kit::{Cut, Fault};

use super::{CLIENT, Sent, judge, prepare, send_each, sent_by, shown};
use crate::http::describe;
use crate::observe::Payments;
use crate::{Call, Delivery, Handler, Http, Subject, Violation};

kit::lesson_specs!(
    feed: Call => crate::Answer | crate::ServerError, read: crate::by_hand::parse, shown: shown,
    describe: describe,
    check: your_requests,
    yours: "acme's requests were sent in the order your spec gives (a scripted interleaving)",
);

/// The requests a spec sends, as `deliver 11` reads a line. The rule judges each client's
/// payments by the answers its own requests got; the tests' database knows two clients, acme
/// and globex.
pub fn your_requests(spec: &Spec) -> Result<Vec<Call>, SpecError> {
    let requests = spec.events("lesson 11", FEED.read)?;
    let known = |call: &Call| ["acme", "globex"].contains(&call.client.as_str());
    match (requests.iter()).position(|call| !known(call)) {
        None => Ok(requests),
        Some(at) => Err(SpecError {
            line: spec.deliveries()[at].1,
            message: format!(
                "the request is {}'s: lesson 11's tests know two clients, acme and globex",
                requests[at].client
            ),
        }),
    }
}

// ANCHOR: play
/// Plays `permutation` of `spec` against `subject`, then judges each client's payments (acme's,
/// and another's that chose the same key) by the answers its client acted on:
/// - a request killed, or cancelled, while it waited on no other request failed on its own: its
///   client sends it again (the spec's next request), and only that one's answer counts; the
///   failed request must not have answered as if it had succeeded (a 409, "come back later", is
///   fine, since the retry made the payment);
/// - otherwise the requests overlapped, and every answer counts; a request whose wait on another
///   one was cut short is told to come back, and once every step has finished its client does;
///   and a request that must not wait (`expect no wait`) did not.
async fn play<H: Handler>(subject: Subject<H>, run: Run<'_, Delivery>) -> Result<(), Violation> {
    let (during, spec) = (run.during, run.spec);
    let calls: Vec<(String, Call)> = (spec.deliveries().into_iter())
        .map(|(session, line, json)| {
            let call = (FEED.read)(json).unwrap_or_else(|e| panic!("line {line}: {e}"));
            (session.to_string(), call)
        })
        .collect();
    let (db, payments) = prepare(&subject, during).await?;
    run.set_up(&db).await?;
    let http = Http(subject.handler.clone());
    let script = (spec.script(&http, FEED.shown, FEED.read)).unwrap_or_else(|e| panic!("{e}"));
    let order = run.permutation.order();
    let (mut interleaving, ran) = kit::play(&db, script, &order, describe, during).await?;
    let waited = (run.permutation.no_waits.iter()).find(|n| ran.waited(&n.session));
    let is_a_request = |session: &String| calls.iter().any(|(s, _)| s == session);
    // A fault that reached a request waiting on another request cut its wait short; any other
    // ended the request on its own.
    let (on_its_own, cut_short) = match failed(&run) {
        Some((worker, _))
            if ran
                .waited_on_when_cancelled(worker)
                .iter()
                .any(is_a_request) =>
        {
            (None, Some(worker))
        }
        failed => (failed, None),
    };
    // A request whose connection was cut at its COMMIT: its client, with no answer to act on,
    // sends it again (the spec's next request). Only a COMMIT that never reached the server
    // makes a success a lie, and only if no retry of its own committed.
    if let Some((worker, cut)) = cut_at_commit(&run).filter(|(w, _)| ran.cut(w).is_some()) {
        let hides = cut.loses_the_commit() && !ran.committed_after_cut(worker);
        let (theirs, kept): (Vec<_>, Vec<_>) =
            ran.outcomes.into_iter().partition(|(w, _)| w == worker);
        let hidden = (theirs.into_iter())
            .find_map(|(_, answer)| answer.ok())
            .filter(|_| hides);
        let retries: Vec<_> = (calls.iter()).filter(|(s, _)| s != worker).collect();
        let sent = sent_by(kept, &retries);
        judge_each(&payments, &calls, sent, during, false, &mut interleaving).await?;
        let hidden = hidden.filter(|answer| answer.status != 409).map(Box::new);
        let trace = interleaving.trace();
        return Violation::unless_failure_hidden(hidden, Fault::CommitLost, during, trace);
    }
    if let Some((worker, fault)) = on_its_own {
        let (kept, hidden) = ran.apart_from_failed(worker);
        let retries: Vec<_> = (calls.iter()).filter(|(s, _)| s != worker).collect();
        let sent = sent_by(kept, &retries);
        judge_each(&payments, &calls, sent, during, false, &mut interleaving).await?;
        let hidden = hidden.filter(|answer| answer.status != 409).map(Box::new);
        return Violation::unless_failure_hidden(hidden, fault, during, interleaving.trace());
    }
    let mut sent = sent_by(ran.outcomes, &calls.iter().collect::<Vec<_>>());
    if let Some(worker) = cut_short {
        let (_, call) = (calls.iter().find(|(s, _)| s == worker)).expect("a request");
        let pool = db.pool(1).await.map_err(Violation::setup(during))?;
        let later = send_each(&subject, &pool, std::slice::from_ref(call)).await;
        for again in &later {
            let answer = describe(&again.outcome);
            interleaving.note(format!("{} sent it again: {answer}", call.client));
        }
        sent.extend(later);
    }
    judge_each(&payments, &calls, sent, during, true, &mut interleaving).await?;
    if let Some(NoWait {
        aggregate, held, ..
    }) = waited
    {
        let trace = interleaving.trace();
        return Err(Violation::waited_on_a_neighbour(
            aggregate, held, during, trace,
        ));
    }
    kit::passing_trace(interleaving.trace());
    Ok(())
}
// ANCHOR_END: play

/// Judges the payments of each client the spec's `calls` are from by the answers its own
/// requests got (`sent`): acme's first, then the others' in the order they appear.
async fn judge_each(
    payments: &Payments,
    calls: &[(String, Call)],
    mut sent: Vec<Sent>,
    during: Delivery,
    overlapped: bool,
    interleaving: &mut kit::Interleaving,
) -> Result<(), Violation> {
    let mut clients: Vec<&str> = Vec::new();
    let acme_first = (calls.iter()).map(|(_, call)| call.client.as_str());
    for client in acme_first
        .clone()
        .filter(|c| *c == CLIENT)
        .chain(acme_first)
    {
        if !clients.contains(&client) {
            clients.push(client);
        }
    }
    for client in clients {
        let theirs: Vec<Sent> = sent.extract_if(.., |s| s.call.client == client).collect();
        let trace = Some(&mut *interleaving);
        judge(payments, client, &theirs, during, overlapped, trace).await?;
    }
    Ok(())
}

/// The request whose connection the permutation cuts at its COMMIT, if it does, and where.
fn cut_at_commit<'a>(run: &Run<'a, Delivery>) -> Option<(&'a str, Cut)> {
    (run.permutation.steps.iter()).find_map(|step| run.spec.cut_target(step))
}

/// The request the permutation kills or cancels, if it does, and how.
fn failed<'a>(run: &Run<'a, Delivery>) -> Option<(&'a str, Fault)> {
    (run.permutation.steps.iter()).find_map(|step| match &run.spec.step(step)?.1.action {
        Action::Kill(worker) => Some((worker.as_str(), Fault::Killed)),
        Action::Cancel(worker) => Some((worker.as_str(), Fault::Cancelled)),
        _ => None,
    })
}
