//! A spec's permutation, played: the forced race and the fault, the scripted families every
//! lesson shares, in one place. The lesson prepares its database (its observer, the rows every
//! scenario starts from) and judges what was left; this runs the spec's setup, plays the
//! permutation, and hands over each delivery with the event it carried, the deliveries a fault
//! ended set apart (what they returned is no one's answer: their transaction rolled back), and
//! which deliveries were seen waiting.

use super::{NoWait, Permutation, Spec};
use crate::engine::interleaving::Interleaving;
use crate::engine::subject::Handler;
use crate::servers::database::TestDatabase;
use crate::servers::relay::Cut;
use crate::words::fault::Fault;
use crate::words::teaching::{Explain, Violation};

/// How a lesson's specs reach its handler, written once per lesson: each `deliver {JSON}` read as
/// the lesson's by-hand feed reads a line, shown in a trace, and what the handler returned (`O`)
/// described there.
pub struct Feed<E, O> {
    pub read: fn(&str) -> Result<E, String>,
    pub shown: fn(&E) -> String,
    pub describe: fn(&O) -> String,
}

impl<E, T: std::fmt::Debug> Feed<E, Result<T, sqlx::Error>> {
    /// The feed of a handler that returns what sqlx returns: its result described as the kit
    /// describes one (the outcome, or the error by its SQLSTATE).
    pub const fn new(read: fn(&str) -> Result<E, String>, shown: fn(&E) -> String) -> Self {
        Feed {
            read,
            shown,
            describe: crate::words::sqlstate::describe_outcome::<T>,
        }
    }
}

impl<E, O> Feed<E, O> {
    /// The same feed, its handler's result described by `describe` instead.
    pub const fn describing(self, describe: fn(&O) -> String) -> Self {
        Feed { describe, ..self }
    }
}

/// One permutation of a spec, as a lesson's `play` is handed it: the spec, the permutation, and
/// how a failure's message tells the delivery.
#[derive(Clone, Copy)]
pub struct Run<'a, D> {
    pub spec: &'a Spec,
    pub permutation: &'a Permutation,
    pub during: D,
}

impl<D: Copy> Run<'_, D> {
    /// Plays the permutation on `db` (prepared by the lesson) against `handler`: the spec's
    /// setup, then its steps, each delivery fed as `feed` says.
    pub async fn play<E, H, T, X, K>(
        &self,
        db: &TestDatabase,
        handler: &H,
        feed: &Feed<E, Result<T, X>>,
    ) -> Result<Played<E, T, X>, Violation<K, D>>
    where
        E: Clone + Send + 'static,
        H: Handler<E, Output = Result<T, X>>,
        K: Explain<D>,
    {
        self.set_up(db).await?;
        self.play_set_up(db, handler, feed).await
    }

    /// Runs the spec's setup on `db`, for a lesson that has more to do between the setup and
    /// the steps (lesson 08 publishes what the setup wrote to the outbox before its consumers
    /// race); [`Run::play_set_up`] then plays the steps.
    pub async fn set_up<K: Explain<D>>(&self, db: &TestDatabase) -> Result<(), Violation<K, D>> {
        (self.spec.set_up(db).await).map_err(Violation::setup(self.during))
    }

    /// Plays the permutation's steps on `db`, whose setup has run ([`Run::set_up`]).
    pub async fn play_set_up<E, H, T, X, K>(
        &self,
        db: &TestDatabase,
        handler: &H,
        feed: &Feed<E, Result<T, X>>,
    ) -> Result<Played<E, T, X>, Violation<K, D>>
    where
        E: Clone + Send + 'static,
        H: Handler<E, Output = Result<T, X>>,
        K: Explain<D>,
    {
        play(db, self.spec, self.permutation, handler, feed, self.during).await
    }
}

/// What a permutation left, for the lesson's rule.
pub struct Played<E, T, X> {
    pub interleaving: Interleaving,
    /// Each delivery no fault ended, in the order the workers started: its session, the event
    /// it carried, what it returned.
    pub delivered: Vec<(String, E, Result<T, X>)>,
    /// Each delivery a kill or a cancel ended: its session, its event, the fault.
    pub ended: Vec<(String, E, Fault)>,
    /// The first delivery a fault ended that reported success all the same.
    pub hidden: Option<Hidden<T>>,
    /// Each delivery whose COMMIT the server carried out but whose answer was lost (`cut …
    /// after commit`): its session, its event and what it returned. Its result is set apart: an error is all it can know without asking, and
    /// a success is true. Its work is kept, so no other delivery need claim it.
    pub answers_lost: Vec<(String, E, Result<T, X>)>,
    waited: Vec<String>,
    no_waits: Vec<NoWait>,
}

/// A delivery a fault ended, which reported success all the same.
pub struct Hidden<T> {
    pub session: String,
    pub fault: Fault,
    pub reported: T,
    /// The sessions it waited on when it was cancelled: a delivery's, for a duplicate whose
    /// wait on the first delivery ended in an error of its own.
    pub waited_on: Vec<String>,
}

impl<E, T, X> Played<E, T, X> {
    /// What the deliveries `is_for` picks (those of one event, or of one order) returned, taken
    /// out of `delivered` in the order the workers started, and how many of them never heard the
    /// answer to their COMMIT: the effect may be one of theirs, so no other delivery need claim
    /// it. For a lesson whose rule judges each event or order apart.
    pub fn take_results(&mut self, is_for: impl Fn(&E) -> bool) -> (Vec<Result<T, X>>, usize) {
        let results = (self.delivered)
            .extract_if(.., |(_, event, _)| is_for(event))
            .map(|(_, _, result)| result)
            .collect();
        let lost = (self.answers_lost.iter()).filter(|(_, event, _)| is_for(event));
        (results, lost.count())
    }

    /// Whether the delivery of `session` was seen waiting on a lock.
    pub fn waited(&self, session: &str) -> bool {
        self.waited.iter().any(|w| w == session)
    }

    /// A delivery that must not wait (`expect no wait`) was not seen waiting; the first that was
    /// is a handler that locks more than its own aggregate.
    pub fn unless_a_neighbour_waited<K: Explain<D>, D: Copy>(
        &self,
        during: D,
    ) -> Result<(), Violation<K, D>> {
        match (self.no_waits.iter()).find(|n| self.waited(&n.session)) {
            Some(NoWait {
                aggregate, held, ..
            }) => {
                let trace = self.interleaving.trace();
                Err(Violation::waited_on_a_neighbour(
                    aggregate, held, during, trace,
                ))
            }
            None => Ok(()),
        }
    }

    /// The endings every spec shares, after the lesson's rule: a delivery that must not wait
    /// (`expect no wait`) did not; a delivery a fault ended reported its failure, since only its
    /// error gets the event delivered again. The trace is offered as a passing one otherwise.
    pub fn end<K: Explain<D, Outcome = T>, D: Copy>(
        self,
        during: D,
    ) -> Result<(), Violation<K, D>> {
        self.unless_a_neighbour_waited(during)?;
        let trace = self.interleaving.trace();
        let (hidden, fault) = match self.hidden {
            Some(hidden) => (Some(hidden.reported), hidden.fault),
            None => (None, Fault::Killed),
        };
        Violation::unless_failure_hidden(hidden, fault, during, trace)
    }
}

/// Plays `permutation` of `spec` on `db` (prepared by the lesson, the spec's setup run) against
/// `handler`: its steps, each delivery's event read as the lesson's by-hand feed reads a line,
/// shown in the trace, its result described, as `feed` says. A spec the lesson cannot read is
/// the caller's to refuse first; here it is a bug.
async fn play<E, H, T, X, K, D>(
    db: &TestDatabase,
    spec: &Spec,
    permutation: &Permutation,
    handler: &H,
    feed: &Feed<E, Result<T, X>>,
    during: D,
) -> Result<Played<E, T, X>, Violation<K, D>>
where
    E: Clone + Send + 'static,
    H: Handler<E, Output = Result<T, X>>,
    K: Explain<D>,
    D: Copy,
{
    let (shown, read, describe) = (feed.shown, feed.read, feed.describe);
    let events: Vec<(&str, E)> = (spec.deliveries().into_iter())
        .map(|(session, line, json)| {
            let event = read(json).unwrap_or_else(|e| panic!("line {line}: {e}"));
            (session, event)
        })
        .collect();
    let event_of = |session: &str| {
        let (_, event) = (events.iter().find(|(s, _)| *s == session))
            .expect("every worker is a delivering session");
        event.clone()
    };
    let script = (spec.script(handler, shown, read)).unwrap_or_else(|e| panic!("{e}"));
    let (interleaving, ran) =
        crate::engine::play::play(db, script, &permutation.order(), describe, during).await?;
    let waited = (events.iter())
        .filter(|(session, _)| ran.waited(session))
        .map(|(session, _)| session.to_string())
        .collect();
    let faulted: Vec<&str> = (permutation.steps.iter())
        .filter_map(|step| spec.fault_target(step))
        .collect();
    let ended: Vec<(String, E, Fault)> = (faulted.iter())
        .filter(|worker| ran.killed(worker) || ran.cancelled(worker))
        .map(|worker| {
            let fault = match ran.killed(worker) {
                true => Fault::Killed,
                false => Fault::Cancelled,
            };
            (worker.to_string(), event_of(worker), fault)
        })
        .collect();
    let waits: Vec<(String, Vec<String>)> = (faulted.iter())
        .map(|w| (w.to_string(), ran.waited_on_when_cancelled(w).to_vec()))
        .collect();
    let cancelled_waiting_on = |session: &str| {
        (waits.iter().find(|(w, _)| w == session)).map_or(Vec::new(), |(_, on)| on.clone())
    };
    let cuts: Vec<(String, Option<Cut>, bool)> = (events.iter())
        .map(|(s, _)| (s.to_string(), ran.cut(s), ran.committed_after_cut(s)))
        .collect();
    let cut_of = |worker: &str| {
        (cuts.iter().find(|(w, _, _)| w == worker))
            .map_or((None, false), |(_, cut, again)| (*cut, *again))
    };
    let (kept, hidden) = ran.apart_from_every_failed(&faulted);
    let hidden = hidden.into_iter().next().map(|(session, reported)| {
        let fault = (ended.iter().find(|(w, _, _)| *w == session))
            .map_or(Fault::Killed, |(_, _, fault)| *fault);
        let waited_on = cancelled_waiting_on(&session);
        Hidden {
            session,
            fault,
            reported,
            waited_on,
        }
    });
    let mut hidden = hidden;
    let mut ended = ended;
    let mut answers_lost = Vec::new();
    let mut delivered = Vec::new();
    for (worker, result) in kept {
        let event = event_of(&worker);
        match (cut_of(&worker), result) {
            // The server rolled back: an error is the truth, and a success hides the failure,
            // unless the handler tried again on a new connection and committed there.
            ((Some(cut), _), Err(_)) if cut.loses_the_commit() => {
                ended.push((worker, event, lost(cut)));
            }
            ((Some(cut), false), Ok(reported)) if cut.loses_the_commit() => {
                hidden.get_or_insert(Hidden {
                    session: worker.clone(),
                    fault: lost(cut),
                    reported,
                    waited_on: Vec::new(),
                });
                ended.push((worker, event, lost(cut)));
            }
            // The server committed: an error is all the handler can know without asking, and
            // a success is true (it asked, or its retry found the work done). Whatever it said,
            // the work is the first delivery's, and no one else need claim it.
            ((Some(_), _), result) => {
                answers_lost.push((worker, event, result));
            }
            (_, result) => delivered.push((worker, event, result)),
        }
    }
    Ok(Played {
        interleaving,
        delivered,
        ended,
        hidden,
        answers_lost,
        waited,
        no_waits: permutation.no_waits.clone(),
    })
}

/// The fault a cut that loses the COMMIT puts on its delivery.
fn lost(cut: Cut) -> Fault {
    match cut {
        Cut::BeforeCommitHeldOpen => Fault::CommitLostUnnoticed,
        _ => Fault::CommitLost,
    }
}
