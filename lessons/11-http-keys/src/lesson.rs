//! Lesson 11 as the kit knows it: how a request is read and shown and which specs it can judge
//! (`scenarios/specs.rs`), how it plays and judges one, and the scenarios still written in Rust
//! (a retry after a refund, a key sent again with another request, another client's same key,
//! a key forgotten after its window). Its tests are every permutation of its specs that names a
//! test (`test NAME`), then those scenarios: the exercise's and the solution's test file is one
//! call (`Subject::tested_by`), and the maintainers' checks play the same tests by name
//! (`kit::contract::play`).
//!
//! The specs send HTTP requests, so what the kit plays is the API in front of the student's
//! handler ([`api`]): each delivery starts the API on the connection it is given and sends the
//! request with a real client.

use kit::harness::Rust;
use kit::spec::{Feed, NoWait, Run, Spec, SpecError};
use kit::{Fault, KitError, TestDatabase};

use crate::http::describe;
use crate::judge::Sent;
use crate::observe::Payments;
use crate::scenarios::{
    self, FEED, cut_at_commit, failed, judge, judge_each, send_each, sent_by, your_requests,
};
use crate::{
    Answer, Call, Delivery, Handler, Http, ServerError, Subject, Violation, ViolationKind,
};

/// Lesson 11: idempotency keys over HTTP.
pub struct Lesson;

/// What the kit's tests call: the API in front of a handler, a handler of HTTP requests.
pub trait Api: kit::Handler<Call, Output = Result<Answer, ServerError>> {}

impl<H> Api for H where H: kit::Handler<Call, Output = Result<Answer, ServerError>> {}

/// `subject`'s handler behind the API, as the tests send it requests.
pub fn api<H: Handler>(subject: Subject<H>) -> Subject<Http<H>> {
    Subject {
        handler: Http(subject.handler),
        schema: subject.schema,
    }
}

impl kit::Lesson for Lesson {
    const FOLDER: &'static str = env!("CARGO_MANIFEST_DIR");
    type Event = Call;
    type Output = Result<Answer, ServerError>;
    type Delivery = Delivery;
    type Kind = ViolationKind;
    type World = Payments;

    const FEED: Feed<Call, Self::Output> = FEED;
    const YOURS: &'static str =
        "acme's requests were sent in the order your spec gives (a scripted interleaving)";
    const RUST: &'static [Rust] = &[
        Rust::once("a_retry_gets_the_first_response_byte_for_byte"),
        Rust::once("a_key_sent_with_another_request_is_refused"),
        Rust::once("another_clients_same_key_is_a_payment_of_its_own"),
        Rust::once("a_key_is_remembered_for_its_window_and_then_forgotten"),
    ];
    // The barrier test, `specs/released.spec`.
    const RELEASES: bool = true;

    fn carried(_: &[Call]) -> String {
        "the same payment under the same idempotency key, as a client's retries that all left \
         before any answer came back"
            .into()
    }

    fn check(spec: &Spec) -> Result<(), SpecError> {
        your_requests(spec).map(drop)
    }

    async fn open(db: &TestDatabase) -> Result<Payments, KitError> {
        Payments::open(db).await
    }

    /// Each request's client known to the API before any request (a released round's client is
    /// new each round), as acme and globex are: a script can lock its row.
    async fn ready(payments: &mut Payments, calls: &[Call]) -> Result<(), KitError> {
        let clients: Vec<&str> = calls.iter().map(|call| call.client.as_str()).collect();
        payments.know(&clients).await
    }

    // ANCHOR: play
    /// Plays `permutation` of `spec` against `subject`, then judges each client's payments
    /// (acme's, and another's that chose the same key) by the answers its client acted on:
    /// - a request killed, or cancelled, while it waited on no other request failed on its own:
    ///   its client sends it again (the spec's next request), and only that one's answer
    ///   counts; the failed request must not have answered as if it had succeeded (a 409, "come
    ///   back later", is fine, since the retry made the payment);
    /// - otherwise the requests overlapped, and every answer counts; a request whose wait on
    ///   another one was cut short is told to come back, and once every step has finished its
    ///   client does; and a request that must not wait (`expect no wait`) did not.
    async fn play<H: Api>(
        subject: Subject<H>,
        db: &TestDatabase,
        payments: &mut Payments,
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        let (during, spec) = (run.during, run.spec);
        let calls: Vec<(String, Call)> = (spec.deliveries().into_iter())
            .map(|(session, line, json)| {
                let call = (FEED.read)(json).unwrap_or_else(|e| panic!("line {line}: {e}"));
                (session.to_string(), call)
            })
            .collect();
        run.set_up(db).await?;
        let script = (spec.script(&subject.handler, FEED.shown, FEED.read))
            .unwrap_or_else(|e| panic!("{e}"));
        let order = run.permutation.order();
        let (mut interleaving, ran) = kit::play(db, script, &order, describe, during).await?;
        let waited = (run.permutation.no_waits.iter()).find(|n| ran.waited(&n.session));
        let is_a_request = |session: &String| calls.iter().any(|(s, _)| s == session);
        // A fault that reached a request waiting on another request cut its wait short; any
        // other ended the request on its own.
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
        // A request whose connection was cut at its COMMIT: its client, with no answer to act
        // on, sends it again (the spec's next request). Only a COMMIT that never reached the
        // server makes a success a lie, and only if no retry of its own committed.
        if let Some((worker, cut)) = cut_at_commit(&run).filter(|(w, _)| ran.cut(w).is_some()) {
            let hides = cut.loses_the_commit() && !ran.committed_after_cut(worker);
            let (theirs, kept): (Vec<_>, Vec<_>) =
                ran.outcomes.into_iter().partition(|(w, _)| w == worker);
            let hidden = (theirs.into_iter())
                .find_map(|(_, answer)| answer.ok())
                .filter(|_| hides);
            let retries: Vec<_> = (calls.iter()).filter(|(s, _)| s != worker).collect();
            let sent = sent_by(kept, &retries);
            judge_each(payments, &calls, sent, during, false, &mut interleaving).await?;
            let hidden = hidden.filter(|answer| answer.status != 409).map(Box::new);
            let trace = interleaving.trace();
            return Violation::unless_failure_hidden(hidden, Fault::CommitLost, during, trace);
        }
        if let Some((worker, fault)) = on_its_own {
            let (kept, hidden) = ran.apart_from_failed(worker);
            let retries: Vec<_> = (calls.iter()).filter(|(s, _)| s != worker).collect();
            let sent = sent_by(kept, &retries);
            judge_each(payments, &calls, sent, during, false, &mut interleaving).await?;
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
        judge_each(payments, &calls, sent, during, true, &mut interleaving).await?;
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

    /// One round of `specs/released.spec`: each client (a fresh one each round) must have been
    /// charged once, and every answer be the first response or a 409. A barrier round has no
    /// script, so its message has no trace.
    async fn judge_released(
        payments: &mut Payments,
        delivered: Vec<(Call, Self::Output)>,
        during: Delivery,
    ) -> Result<(), Violation> {
        for (call, outcomes) in kit::contract::grouped(delivered, |call| call.client.clone()) {
            let sent: Vec<Sent> = (outcomes.into_iter())
                .map(|outcome| Sent::new(&call, outcome))
                .collect();
            judge(payments, &call.client, &sent, during, true, None).await?;
        }
        Ok(())
    }

    async fn play_rust<H: Api>(name: &'static str, subject: Subject<H>) -> Result<(), Violation> {
        match name {
            "a_retry_gets_the_first_response_byte_for_byte" => {
                scenarios::retried_after_a_refund(subject).await
            }
            "a_key_sent_with_another_request_is_refused" => {
                scenarios::key_sent_again_with_another_request(subject).await
            }
            "another_clients_same_key_is_a_payment_of_its_own" => {
                scenarios::another_client_sends_the_same_key(subject).await
            }
            "a_key_is_remembered_for_its_window_and_then_forgotten" => {
                scenarios::forgotten_after_its_window(subject).await
            }
            other => panic!("lesson 11 lists {other} but plays no scenario by that name"),
        }
    }
}
