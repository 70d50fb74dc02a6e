//! Lesson 12 as the kit knows it: how a step (a request, or a run of the completer) is read and
//! shown and which specs it can judge (`scenarios/specs.rs`), how it plays and judges one, and
//! the scenarios still written in Rust (a provider that hangs up, a slow provider, the
//! provider's key over a longer life, and the barrier of bursts). Its tests are every
//! permutation of its specs that names a test (`test NAME`), then those scenarios: the
//! exercise's and the solution's test file is one call (`Subject::tested_by`), and the
//! maintainers' checks play the same tests by name (`kit::contract::play`).
//!
//! The specs send HTTP requests and run the completer, so what the kit plays is lesson 11's API
//! in front of the student's handlers ([`api`]).

use kit::harness::Rust;
use kit::spec::{Feed, Run, Spec, SpecError};
use kit::{Cut, Fault, KitError, TestDatabase};

use crate::judge::Payment;
use crate::scenarios::{
    self, FEED, again, answers, describe, judge, judge_books, payments, provider_callers, read,
    took_over_a_live_lease, your_steps,
};
use crate::{Clock, Delivery, Handler, Http, Outcome, Step, Subject, Violation, ViolationKind};
use http_keys::{Answer, ServerError};

/// Lesson 12: a charge at a provider, between atomic phases.
pub struct Lesson;

/// What the kit's tests call: lesson 11's API in front of the handlers, and the completer.
pub trait Api: kit::Handler<Step, Output = Outcome> {}

impl<H> Api for H where H: kit::Handler<Step, Output = Outcome> {}

/// `subject`'s handlers behind the API, as the tests send it steps.
pub fn api<H: Handler>(subject: Subject<H>) -> Subject<Http<H>> {
    Subject {
        handler: Http {
            handler: subject.handler,
            clock: Clock::default(),
        },
        schema: subject.schema,
    }
}

/// The barrier's sizes: copies of acme's request in each burst.
const REQUESTS: &[(&str, &str)] = &[
    ("two_requests", "2"),
    ("eight_requests", "8"),
    ("thirty_two_requests", "32"),
];

impl kit::Lesson for Lesson {
    const FOLDER: &'static str = env!("CARGO_MANIFEST_DIR");
    type Event = Step;
    type Output = Outcome;
    type Delivery = Delivery;
    type Kind = ViolationKind;
    /// Nothing: the rule reads the books and the provider's ledger on the test's database.
    type World = ();

    const FEED: Feed<Step, Outcome> = FEED;
    const YOURS: &'static str = "acme's requests and the completer ran in the order your spec \
                                 gives (a scripted interleaving)";
    const RUST: &'static [Rust] = &[
        // A race the exercise loses.
        Rust {
            repeat: true,
            ..Rust::once("a_provider_that_hangs_up_charges_once")
        },
        Rust::once("a_slow_provider_holds_up_no_one"),
        Rust::once("a_key_used_again_after_the_window_is_a_new_payment"),
        Rust::once("the_longest_key_the_api_accepts_is_charged"),
        // Two bursts and a retry a round, on books emptied between rounds: a spec's barrier
        // releases one burst. A race the exercise loses.
        Rust {
            repeat: true,
            multi_thread: true,
            cases: REQUESTS,
            ..Rust::once("retries_released_together_charge_once")
        },
    ];

    fn check(spec: &Spec) -> Result<(), SpecError> {
        your_steps(spec).map(drop)
    }

    async fn open(_: &TestDatabase) -> Result<(), KitError> {
        Ok(())
    }

    // ANCHOR: play
    /// Plays `permutation` of `spec` against `subject`, then judges it by the rule:
    /// - a run of the completer that finished a key while a request's lease was still live took
    ///   that request's key from it;
    /// - a request killed, cancelled or abandoned while it waited on no other request died: only
    ///   its claim to have made the payment would be wrong;
    /// - once a request has died and the completer has run, our books must hold the charge before
    ///   any retry (many clients never come back);
    /// - a client keeps the payment if any answer carried it; if none did (each said to come back,
    ///   or none came), acme sends the request again once every lease has run out;
    /// - then the provider charged once, our books hold that charge, and the last answer is it.
    async fn play<H: Api>(
        subject: Subject<H>,
        db: &TestDatabase,
        _: &mut (),
        run: Run<'_, Delivery>,
    ) -> Result<(), Violation> {
        let (during, spec) = (run.during, run.spec);
        let steps: Vec<(&str, Step)> = (spec.deliveries().into_iter())
            .map(|(session, line, json)| {
                let step = read(json).unwrap_or_else(|e| panic!("line {line}: {e}"));
                (session, step)
            })
            .collect();
        run.set_up(db).await?;
        let http = &subject.handler;
        let script = (spec.script(http, FEED.shown, FEED.read)).unwrap_or_else(|e| panic!("{e}"));
        let order = run.permutation.order();
        let (mut interleaving, ran) = kit::play(db, script, &order, describe, during).await?;
        let callers = (provider_callers(db).await).map_err(Violation::setup(during))?;
        if let Some(kind) = took_over_a_live_lease(run, &steps, &ran.outcomes, &callers) {
            return Err(Violation::caught(during, Some(interleaving.trace()))(kind));
        }
        // A request a fault ended while it waited on no other request failed on its own, as if it
        // died: what it answered is not the client's to act on, unless it claims the payment.
        let is_a_request = |session: &String| steps.iter().any(|(s, _)| s == session);
        let mut ended: Vec<&str> = (steps.iter().map(|(session, _)| *session))
            .filter(|s| ran.killed(s) || ran.abandoned(s) || ran.cancelled(s))
            .filter(|s| !ran.waited_on_when_cancelled(s).iter().any(is_a_request))
            .collect();
        // So did a request whose connection was cut at a COMMIT: it cannot know what committed.
        // Its payment is a lie only where that COMMIT never reached the server and nothing of its
        // own committed after; otherwise the books judge it.
        let cut = (steps.iter().map(|(session, _)| *session)).find(|s| ran.cut(s).is_some());
        let lost = |s: &&str| ran.cut(s).is_some_and(Cut::loses_the_commit);
        let lying = cut.filter(|s| lost(s) && !ran.committed_after_cut(s));
        ended.extend(cut.filter(|s| lying == Some(*s) || !lost(s)));
        let (gone, outcomes): (Vec<_>, Vec<_>) =
            (ran.outcomes.into_iter()).partition(|(session, _)| ended.contains(&session.as_str()));
        let hidden = (gone.into_iter())
            .filter(|(session, _)| cut != Some(session.as_str()) || lying.is_some())
            .find_map(|(_, outcome)| match outcome {
                Outcome::Answered(Ok(answer)) if answer.status == 201 => Some(Box::new(answer)),
                _ => None,
            });
        if hidden.is_some() {
            let fault = if lying.is_some() {
                Fault::CommitLost
            } else {
                Fault::Cancelled
            };
            let trace = interleaving.trace();
            return Violation::unless_failure_hidden(hidden, fault, during, trace);
        }
        let completer = (outcomes.iter()).filter(|(_, o)| matches!(o, Outcome::Completed(_)));
        let completer: Vec<Outcome> = completer.map(|(_, o)| o.clone()).collect();
        answers(completer.clone())
            .map_err(Violation::caught(during, Some(interleaving.trace())))?;
        let mut payments = payments(&steps, &outcomes);
        if !ended.is_empty() && !completer.is_empty() {
            let books_alone: Vec<Payment> = (payments.iter())
                .map(|p| Payment {
                    call: p.call.clone(),
                    answers: Vec::new(),
                    others: Vec::new(),
                })
                .collect();
            judge_books(db, &books_alone, during, Some(interleaving.trace())).await?;
        }
        let several = payments.len() > 1;
        for payment in &mut payments {
            let paid = |o: &Result<Answer, ServerError>| matches!(o, Ok(a) if a.status == 201);
            if payment.answers.iter().any(paid) {
                continue;
            }
            let told = !payment.answers.is_empty();
            let last = again(db, http, &steps, &payment.call, during).await?;
            let when = if told { " after the lease" } else { "" };
            let key = if several {
                format!(" {}", payment.call.key)
            } else {
                String::new()
            };
            interleaving.note(format!("acme retries{key}{when}: {}", describe(&last)));
            if let Outcome::Answered(answer) = last {
                payment.answers.push(answer);
            }
        }
        judge(db, &payments, during, Some(interleaving.trace())).await
    }
    // ANCHOR_END: play

    async fn play_rust<H: Api>(name: &'static str, subject: Subject<H>) -> Result<(), Violation> {
        match name.split("::").next().unwrap_or(name) {
            "a_provider_that_hangs_up_charges_once" => {
                scenarios::provider_hangs_up_then_retried(subject).await
            }
            "a_slow_provider_holds_up_no_one" => {
                scenarios::slow_provider_holds_up_no_one(subject).await
            }
            "a_key_used_again_after_the_window_is_a_new_payment" => {
                scenarios::key_used_again_after_the_window(subject).await
            }
            "the_longest_key_the_api_accepts_is_charged" => {
                scenarios::longest_key_is_charged(subject).await
            }
            "retries_released_together_charge_once" => {
                let workers = kit::contract::listed::<Lesson>().case(name);
                scenarios::barrier(subject, workers).await
            }
            other => panic!("lesson 12 lists {other} but plays no scenario by that name"),
        }
    }
}
