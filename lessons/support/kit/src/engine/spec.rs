//! A scripted scenario as data: a spec file in PostgreSQL's isolation-tester dialect
//! (`src/test/isolation/specs`, read as PostgreSQL 15's `specparse.y` reads it; the grammar is in
//! [`parse`]), with the workbook's words on top, which a student can read and write. This file
//! holds a parsed spec and checks that it makes sense; playing it is the engine's: a spec that
//! delivers, by [`crate::Script`]; a spec of sessions only, exactly as PostgreSQL's tester plays
//! it, by [`crate::tester`].
//!
//! ```text
//! # Two deliveries of one event, while a holder keeps the account locked.
//! setup { INSERT INTO accounts (id) VALUES ('acc-2') }
//!
//! session holder
//! setup       { BEGIN; SELECT 1 FROM accounts WHERE id = 'acc-1' FOR UPDATE }
//! step commit { COMMIT }
//!
//! session worker-1
//! step first deliver {"id": "evt-1", "account": "acc-1", "amount_cents": 100}
//!
//! session worker-2
//! step second deliver {"id": "evt-1", "account": "acc-1", "amount_cents": 100}
//!
//! permutation first second commit
//! test a_delivery_racing_the_first_is_refused
//! story "evt-1 was delivered twice while the account was locked"
//! expect exercise CreditedMoreThanOnce "credited 2 times"
//! expect solution holds
//! ```
//!
//! - The isolation tester's parts: `setup { SQL }` before any session (several, in order, each
//!   once per permutation), `teardown { SQL }`; `session NAME` with its own `setup` (run on the
//!   session's own connection before the first step: a `BEGIN` there holds its locks from the
//!   start) and `teardown`; `step NAME { SQL }`; `permutation STEP…` over as many lines as it
//!   takes, a step perhaps marked `(*)`, `(OTHER)` or `(OTHER notices N)`; names plain or in
//!   double quotes; `#` comments. A spec of sessions only with no permutation plays every
//!   interleaving.
//! - The workbook's steps: `step NAME deliver {JSON}` hands the lesson's handler one event (or
//!   request), written as the lesson's by-hand lines are; `kill|cancel|abandon SESSION` ends a
//!   delivering session's work as a crash, a statement timeout or a dropped future would; `cut
//!   SESSION before commit [held open]|after commit|after every commit`, played before that session's
//!   delivery, cuts its connection at a COMMIT; `hook HOOK [ARGUMENT…]` runs something the
//!   lesson supplies in Rust, by name.
//! - The workbook's lines after a permutation: `expect exercise|solution VERDICT [WORD…]` (`holds`,
//!   or the kind of violation it must fail with, and words its message must carry); `test NAME`,
//!   the test that plays it; `story "…"`, how a failure's message tells the delivery; `expect
//!   wait SESSION`; `expect no wait SESSION for AGGREGATE on "HELD"`; `barrier N workers, R
//!   rounds` ([`Barrier`]), under a permutation of deliveries, which plays them on N workers
//!   released by a barrier (worker i making delivery i, round robin), R rounds, `{round}` in
//!   each event the round's number.
//!
//! A file that does not make sense, or that the engine could not play as written, is refused
//! with the line that says so, never played another way: a syntax error, a step or session
//! named twice, a session that delivers twice, a fault aimed at a session that delivers nothing
//! or played before its delivery, a permutation that names a missing step; in a spec that
//! delivers, a setup or teardown on a delivering session (its connection is its handler's), a
//! spec-level teardown, a marker, a step named twice in a permutation, or no permutation.

use std::fmt;

pub use crate::engine::commit_points::{at_commit, at_each_commit};
use crate::servers::relay::Cut;

/// A parsed and checked spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// SQL run before any session, in order, on a connection of its own.
    pub setup: Vec<String>,
    /// SQL run once every session's teardown has run, on a connection of its own.
    pub teardown: Option<String>,
    pub sessions: Vec<SessionSpec>,
    /// The orders the file lists. None, in a spec of sessions only, means every interleaving
    /// ([`Spec::orders`]).
    pub permutations: Vec<Permutation>,
}

/// A session and its steps, in the order the file lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSpec {
    pub name: String,
    pub line: usize,
    /// SQL run on the session's own connection before the permutation's first step (a
    /// `BEGIN` here holds its locks from the start).
    pub setup: Option<String>,
    /// SQL run on the session's own connection once the permutation's steps are done.
    pub teardown: Option<String>,
    pub steps: Vec<StepSpec>,
}

/// One named step of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepSpec {
    pub name: String,
    pub line: usize,
    pub action: Action,
}

/// What a step does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// SQL on the session's own connection.
    Sql(String),
    /// One event or request for the lesson's handler, as the lesson's by-hand line (JSON).
    Deliver(String),
    /// The session's work ends as when its process dies: its connections are terminated.
    Kill(String),
    /// The session's waiting statement is cancelled, as by `statement_timeout`.
    Cancel(String),
    /// The session's future is dropped where it waits, as by a request timeout.
    Abandon(String),
    /// The session's delivery, played after this step, has its connection cut at its first
    /// COMMIT: before the COMMIT reaches the server, or after the server has answered it.
    Cut(String, Cut),
    /// The session's delivery, paused after its first commit by `pause SESSION after commit`
    /// (a [`Cut::PauseAfterCommit`]), gets the server's answer and runs on.
    Resume(String),
    /// Something the lesson does in Rust, by name, with its arguments as written.
    Hook {
        name: String,
        arguments: Vec<String>,
    },
}

/// One order of steps, and what it must show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutation {
    pub line: usize,
    pub steps: Vec<String>,
    /// Each step's markers (`s1(*)`, `s1(s2)`, `s1(s2 notices 1)`), by its place in `steps`:
    /// when the isolation tester may report that step as done.
    pub markers: Vec<Vec<Marker>>,
    pub expect: Vec<Expectation>,
    /// The test that plays this order (`test NAME`), in a lesson's own specs.
    pub test: Option<String>,
    /// How a failure's message opens, in a sentence: how the events were delivered (`story
    /// "…"`).
    pub story: Option<String>,
    /// Deliveries that must be seen waiting (`expect wait SESSION`): one that decides without
    /// waiting for a transaction still open has guessed its outcome.
    pub waits: Vec<String>,
    /// Deliveries that must not be seen waiting (`expect no wait …`).
    pub no_waits: Vec<NoWait>,
    /// Its deliveries played by workers released together, round after round (`barrier N
    /// workers, R rounds`), instead of in the order of its steps.
    pub barrier: Option<Barrier>,
}

/// `barrier N workers, R rounds`, under a permutation of deliveries: the essay's barrier. `N`
/// workers wait at a barrier and are released at once, worker `i` with the permutation's
/// delivery `i` (round robin: one delivery gives every worker the same event, and `failed
/// cancelled` gives the even workers one and the odd ones the other), so that they race for
/// real instead of in a scripted order; then again, `R` rounds on one database, each with
/// `{round}` in every event replaced by the round's number (fresh events for a fresh aggregate
/// every round). A round catches a race only when the scheduler lets the
/// workers overlap, so the rounds make a miss unlikely, never impossible: the scripted
/// permutations make the same race certain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Barrier {
    pub workers: usize,
    pub rounds: usize,
}

/// What `{round}` in a released delivery stands for.
pub const ROUND: &str = "{round}";

/// A marker on a step of a permutation, as PostgreSQL's isolation tester reads it: the step is
/// not reported done while the marker's condition holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Marker {
    /// `(*)`: reported as waiting as soon as it starts, whether or not it is seen waiting.
    Once,
    /// `(other)`: not reported done while the step `other` is running.
    After(String),
    /// `(other notices N)`: not reported done before `other`'s session has sent N notices
    /// since this step started.
    Notices(String, u32),
}

/// A delivery that needs nothing the other sessions hold (`expect no wait worker-2 for ord-2 on
/// "ord-1's row"`): if it waits all the same, the handler locks more than its own aggregate, and
/// one slow delivery holds up every other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoWait {
    pub session: String,
    /// What the delivery is about: "ord-2".
    pub aggregate: String,
    /// What the others hold, that it must not wait on: "ord-1's uncommitted payment".
    pub held: String,
}

/// What a permutation must show against one side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    pub side: Side,
    pub verdict: Verdict,
    /// Words the failure's message must carry.
    pub words: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The shipped exercise.
    Exercise,
    Solution,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The lesson's rule holds.
    Holds,
    /// The rule is broken, with a violation of this kind, or of any of the kinds `A|B` names
    /// (a barrier's round may catch one race or another).
    Fails(String),
}

impl Verdict {
    /// Whether a violation of kind `kind` is what this verdict expects.
    pub fn names(&self, kind: &str) -> bool {
        matches!(self, Verdict::Fails(kinds) if kinds.split('|').any(|named| named == kind))
    }
}

/// Why a spec was refused, and on which line (counted from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for SpecError {}

impl Spec {
    /// Parses `text` and checks that every name it uses is defined.
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let spec = parse::Parser::new(text).spec()?;
        spec.check()?;
        Ok(spec)
    }

    /// The step named `name`, with its session.
    pub fn step(&self, name: &str) -> Option<(&SessionSpec, &StepSpec)> {
        (self.sessions.iter())
            .flat_map(|session| session.steps.iter().map(move |step| (session, step)))
            .find(|(_, step)| step.name == name)
    }

    fn check(&self) -> Result<(), SpecError> {
        let mut sessions: Vec<&SessionSpec> = Vec::new();
        let mut steps: Vec<&StepSpec> = Vec::new();
        for session in &self.sessions {
            if let Some(first) = sessions.iter().find(|s| s.name == session.name) {
                return Err(error(
                    session.line,
                    format!(
                        "session `{}` is named twice (first on line {})",
                        session.name, first.line
                    ),
                ));
            }
            sessions.push(session);
            let mut deliveries =
                (session.steps.iter()).filter(|step| matches!(step.action, Action::Deliver(_)));
            if let (Some(first), Some(second)) = (deliveries.next(), deliveries.next()) {
                return Err(error(
                    second.line,
                    format!(
                        "session `{}` delivers twice (first on line {}): each delivery is a \
                         worker of its own, on a connection of its own, so give this one a \
                         session of its own",
                        session.name, first.line
                    ),
                ));
            }
            for step in &session.steps {
                if let Some(first) = steps.iter().find(|s| s.name == step.name) {
                    return Err(error(
                        step.line,
                        format!(
                            "step `{}` is named twice (first on line {}): a permutation names \
                             steps, so each name is one step",
                            step.name, first.line
                        ),
                    ));
                }
                steps.push(step);
            }
        }
        for step in &steps {
            let target = match &step.action {
                Action::Kill(target)
                | Action::Cancel(target)
                | Action::Abandon(target)
                | Action::Cut(target, _)
                | Action::Resume(target) => target,
                _ => continue,
            };
            let delivers = (self.sessions.iter())
                .find(|session| &session.name == target)
                .map(|session| {
                    (session.steps.iter()).any(|s| matches!(s.action, Action::Deliver(_)))
                });
            match delivers {
                None => {
                    return Err(error(
                        step.line,
                        format!("step `{}` names no session `{target}`", step.name),
                    ));
                }
                Some(false) => {
                    return Err(error(
                        step.line,
                        format!(
                            "step `{}` aims at `{target}`, which delivers nothing: a fault ends \
                             a delivery's work (a session that only runs SQL is the test's own)",
                            step.name
                        ),
                    ));
                }
                Some(true) => {}
            }
        }
        let sessions_only = self.is_sessions_only();
        if self.permutations.is_empty() && !sessions_only {
            let line = self.sessions.last().map_or(1, |s| s.line);
            return Err(error(
                line,
                "no permutation: a spec that delivers plays its steps in the orders its \
                 `permutation` lines give, and has at least one (only a spec of sessions only \
                 plays every interleaving when it names none)"
                    .into(),
            ));
        }
        for session in &self.sessions {
            let delivers = (session.steps.iter()).any(|s| !matches!(s.action, Action::Sql(_)));
            if delivers && (session.setup.is_some() || session.teardown.is_some()) {
                return Err(error(
                    session.line,
                    format!(
                        "session `{}` has a setup or a teardown and steps that are not SQL: a \
                         delivering session's connection is its handler's, so its setup could \
                         not run there; give the SQL a session of its own",
                        session.name
                    ),
                ));
            }
        }
        for (at, permutation) in self.permutations.iter().enumerate() {
            let earlier = &self.permutations[..at];
            if let Some(test) = &permutation.test
                && let Some(first) = earlier.iter().find(|p| p.test.as_ref() == Some(test))
            {
                return Err(error(
                    permutation.line,
                    format!(
                        "the test `{test}` plays two permutations (first on line {}): a test \
                         plays one",
                        first.line
                    ),
                ));
            }
            let waits = permutation.waits.iter().map(|session| (session, "to wait"));
            let no_waits = (permutation.no_waits.iter()).map(|n| (&n.session, "not to wait"));
            for (session, expected) in waits.chain(no_waits) {
                let delivered = (permutation.steps.iter()).any(|step| {
                    self.step(step).is_some_and(|(s, step)| {
                        &s.name == session && matches!(step.action, Action::Deliver(_))
                    })
                });
                if !delivered {
                    return Err(error(
                        permutation.line,
                        format!(
                            "the permutation expects `{session}` {expected}, but plays no \
                             delivery of `{session}`"
                        ),
                    ));
                }
            }
        }
        for permutation in &self.permutations {
            self.check_barrier(permutation)?;
            self.check_markers(permutation, sessions_only)?;
            for (at, name) in permutation.steps.iter().enumerate() {
                if permutation.steps[..at].contains(name) && !sessions_only {
                    return Err(error(
                        permutation.line,
                        format!(
                            "the permutation names `{name}` twice: a step runs once in a \
                             permutation (write a second step for a second statement)"
                        ),
                    ));
                }
                if !steps.iter().any(|step| &step.name == name) {
                    let known: Vec<&str> = steps.iter().map(|s| s.name.as_str()).collect();
                    return Err(error(
                        permutation.line,
                        format!(
                            "the permutation names `{name}`, which no session has (its steps: {})",
                            known.join(", ")
                        ),
                    ));
                }
                if let Some(target) = self.fault_target(name) {
                    self.delivered_before(permutation, at, name, target)?;
                }
                if let Some((target, cut)) = self.cut_target(name) {
                    self.cut_before(permutation, at, name, target)?;
                    let resumed = (permutation.steps[at..].iter())
                        .any(|later| self.resume_target(later) == Some(target));
                    if cut == Cut::PauseAfterCommit && !resumed {
                        return Err(error(
                            permutation.line,
                            format!(
                                "the permutation pauses `{target}` (step `{name}`) and never \
                                 resumes it: add a step `resume {target}` after its delivery"
                            ),
                        ));
                    }
                }
                if let Some(target) = self.resume_target(name) {
                    self.delivered_before(permutation, at, name, target)?;
                }
            }
        }
        Ok(())
    }
}

impl Spec {
    /// A released permutation (`barrier N workers, R rounds`) plays its deliveries on its
    /// workers at once: anything else in its order, or a wait expected of a scripted session,
    /// has no place in a race left to the scheduler.
    fn check_barrier(&self, permutation: &Permutation) -> Result<(), SpecError> {
        if permutation.barrier.is_none() {
            return Ok(());
        }
        let delivers = |step: &String| {
            (self.step(step)).is_some_and(|(_, step)| matches!(step.action, Action::Deliver(_)))
        };
        let refused = (!permutation.steps.iter().all(delivers)).then_some(
            "a released permutation names `deliver` steps only: the workers released together \
             make those deliveries, in turn, and nothing else runs beside them",
        );
        let refused = refused.or_else(|| {
            permutation.story.is_some().then_some(
                "a released permutation's failures tell how many workers were released and \
                 the round that caught them, so it takes no `story`",
            )
        });
        let refused = refused.or_else(|| {
            (!permutation.waits.is_empty() || !permutation.no_waits.is_empty()).then_some(
                "`expect wait` and `expect no wait` judge a scripted order, and a released \
                 permutation has none: its workers race as the scheduler lets them",
            )
        });
        match refused {
            Some(why) => Err(error(permutation.line, why.into())),
            None => Ok(()),
        }
    }

    /// The events a released permutation delivers in round `round`, in its order: each
    /// `deliver` line with [`ROUND`] replaced by the round's number. Worker `i` makes delivery
    /// `i % n`.
    pub fn released_deliveries(&self, permutation: &Permutation, round: usize) -> Vec<String> {
        (permutation.steps.iter())
            .filter_map(|step| match &self.step(step)?.1.action {
                Action::Deliver(json) => Some(json.replace(ROUND, &round.to_string())),
                _ => None,
            })
            .collect()
    }

    /// Whether every step is SQL: a spec of sessions only, as PostgreSQL's isolation tester
    /// plays them, with no handler.
    pub fn is_sessions_only(&self) -> bool {
        (self.sessions.iter())
            .flat_map(|session| &session.steps)
            .all(|step| matches!(step.action, Action::Sql(_)))
    }

    /// The orders to play: the permutations the file lists, or, when it lists none, every
    /// interleaving of the sessions' steps (each session's in its order), in the order
    /// PostgreSQL's isolation tester plays them: the first session's next step first.
    pub fn orders(&self) -> Vec<Vec<String>> {
        if !self.permutations.is_empty() {
            return self.permutations.iter().map(|p| p.steps.clone()).collect();
        }
        fn pick(
            spec: &Spec,
            piles: &mut [usize],
            order: &mut Vec<String>,
            all: &mut Vec<Vec<String>>,
        ) {
            let mut found = false;
            for session in 0..spec.sessions.len() {
                if let Some(step) = spec.sessions[session].steps.get(piles[session]) {
                    order.push(step.name.clone());
                    piles[session] += 1;
                    pick(spec, piles, order, all);
                    piles[session] -= 1;
                    order.pop();
                    found = true;
                }
            }
            if !found {
                all.push(order.clone());
            }
        }
        let mut all = Vec::new();
        pick(
            self,
            &mut vec![0; self.sessions.len()],
            &mut Vec::new(),
            &mut all,
        );
        all
    }

    /// A marker names a step of its own permutation, in another session, as the isolation
    /// tester requires; and only a spec of sessions only has them, since only its steps are
    /// reported the tester's way.
    fn check_markers(
        &self,
        permutation: &Permutation,
        sessions_only: bool,
    ) -> Result<(), SpecError> {
        for (name, markers) in permutation.steps.iter().zip(&permutation.markers) {
            if markers.is_empty() {
                continue;
            }
            if !sessions_only {
                return Err(error(
                    permutation.line,
                    format!(
                        "`{name}` carries a marker (`(*)`, `(STEP)`, `(STEP notices N)`): \
                         markers say when the isolation tester reports a step done, and only a \
                         spec of sessions only is reported that way"
                    ),
                ));
            }
            let Some((own, _)) = self.step(name) else {
                continue; // refused below: no such step
            };
            for marker in markers {
                let other = match marker {
                    Marker::Once => continue,
                    Marker::After(other) | Marker::Notices(other, _) => other,
                };
                if !permutation.steps.contains(other) {
                    return Err(error(
                        permutation.line,
                        format!(
                            "`{name}`'s marker names `{other}`, which this permutation does not \
                             play"
                        ),
                    ));
                }
                if self
                    .step(other)
                    .is_some_and(|(session, _)| session.name == own.name)
                {
                    return Err(error(
                        permutation.line,
                        format!(
                            "`{name}`'s marker names `{other}`, a step of its own session: a \
                             step can only wait on another session"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The session a kill, cancel or abandon step aims at.
    pub fn fault_target(&self, step: &str) -> Option<&str> {
        match &self.step(step)?.1.action {
            Action::Kill(target) | Action::Cancel(target) | Action::Abandon(target) => Some(target),
            _ => None,
        }
    }

    /// Whether `permutation` cuts a session after every commit: it is played once to count
    /// the commits, then once a commit.
    pub fn cuts_after_every_commit(&self, permutation: &Permutation) -> bool {
        (permutation.steps.iter())
            .any(|step| matches!(self.cut_target(step), Some((_, Cut::AfterEveryCommit))))
    }

    /// The session a resume step aims at.
    pub fn resume_target(&self, step: &str) -> Option<&str> {
        match &self.step(step)?.1.action {
            Action::Resume(target) => Some(target),
            _ => None,
        }
    }

    /// The session a cut step aims at, and where it cuts.
    pub fn cut_target(&self, step: &str) -> Option<(&str, Cut)> {
        match &self.step(step)?.1.action {
            Action::Cut(target, cut) => Some((target, *cut)),
            _ => None,
        }
    }

    /// Each delivery: the session's name, the step's line, and the JSON it delivers.
    pub fn deliveries(&self) -> Vec<(&str, usize, &str)> {
        (self.sessions.iter())
            .flat_map(|session| {
                (session.steps.iter()).filter_map(|step| match &step.action {
                    Action::Deliver(json) => {
                        Some((session.name.as_str(), step.line, json.as_str()))
                    }
                    _ => None,
                })
            })
            .collect()
    }

    /// Steps no permutation names: written, and never played.
    pub fn unplayed(&self) -> Vec<&StepSpec> {
        (self.sessions.iter())
            .flat_map(|session| &session.steps)
            .filter(|step| {
                !(self.permutations.iter()).any(|p| p.steps.iter().any(|s| s == &step.name))
            })
            .collect()
    }

    /// A fault can only end work that has begun: the permutation must start a delivery of
    /// `target` before step `fault` (at `at`) aims at it.
    fn delivered_before(
        &self,
        permutation: &Permutation,
        at: usize,
        fault: &str,
        target: &str,
    ) -> Result<(), SpecError> {
        if self.delivers_before(permutation, at, target) {
            return Ok(());
        }
        Err(error(
            permutation.line,
            format!(
                "the permutation plays `{fault}` before `{target}` delivers anything: a fault \
                 ends work that has begun, so put `{target}`'s delivery earlier"
            ),
        ))
    }
}

impl Spec {
    /// Whether `permutation` starts a delivery of `target` before its step at `at`.
    fn delivers_before(&self, permutation: &Permutation, at: usize, target: &str) -> bool {
        permutation.steps[..at].iter().any(|earlier| {
            self.step(earlier).is_some_and(|(session, step)| {
                session.name == target && matches!(step.action, Action::Deliver(_))
            })
        })
    }

    /// A cut is set before the delivery it cuts: once the handler runs, its connection is made.
    fn cut_before(
        &self,
        permutation: &Permutation,
        at: usize,
        cut: &str,
        target: &str,
    ) -> Result<(), SpecError> {
        if !self.delivers_before(permutation, at, target) {
            return Ok(());
        }
        Err(error(
            permutation.line,
            format!(
                "the permutation plays `{cut}` after `{target}` delivers: a cut or a pause is \
                 set before the delivery whose commit it aims at, so put `{cut}` earlier"
            ),
        ))
    }
}

fn error(line: usize, message: String) -> SpecError {
    SpecError { line, message }
}

/// What an `expect` line says.
enum Expected {
    Verdict(Expectation),
    Wait(String),
    NoWait(NoWait),
}

mod parse;
pub mod played;
mod script;
mod shipped;
pub use played::{Feed, Hidden, Played, Run};
pub use shipped::Shipped;

#[cfg(test)]
mod tests;
