//! What every lesson's failure messages share. A scenario that catches something returns a
//! [`Violation`]: what kind of thing it caught, how the events were delivered when it did, and
//! the step-by-step trace of a scripted scenario. Its `Display` (and its `Debug`, which is what
//! a failing test prints) is the teaching message: what happened, why it is wrong, and where the
//! book explains it. The fix itself is left to the chapter and the hints: a message that gives
//! the answer makes the staged hints pointless.

use std::fmt;

use crate::error::KitError;
use crate::words::common::{Common, Speaks};
use crate::words::fault::Fault;
use crate::words::reported::{self, Reported};
use crate::words::trace::{Trace, passing_trace};

/// A lesson's kinds of violation, and how each is explained: the lesson's own kinds by the
/// lesson, the [`Common`] ones by the kit, in the lesson's words ([`Speaks`]).
pub trait Explain<D>: Sized + Speaks {
    /// What the lesson's code under test reports when it succeeds.
    type Outcome: fmt::Debug;

    /// The lesson's kind for a common violation (its `Common` variant).
    fn common(common: Common<Self::Outcome>) -> Self;

    /// The common violation this kind is, if it is one.
    fn as_common(&self) -> Option<&Common<Self::Outcome>>;

    /// The message: what happened (during `during`), why it is wrong, and which section of the
    /// book explains it ([`see`]). A common kind's message is [`Common::explain`]'s, after the
    /// lesson's opening (`"{during}: "`; none for a test that could not run).
    fn explain(&self, during: &D, f: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// The message's usual opening, `"{during}: "`: what happened is told after how the
    /// deliveries ran. A test that could not run goes without it, since nothing was delivered.
    fn open(&self, during: &D, f: &mut fmt::Formatter<'_>) -> fmt::Result
    where
        D: fmt::Display,
    {
        match self.as_common() {
            Some(Common::Setup(_)) => Ok(()),
            _ => write!(f, "{during}: "),
        }
    }

    /// The kind for "the test could not run" (no server, a migration that does not apply, …).
    fn setup(error: KitError) -> Self {
        Self::common(Common::Setup(Box::new(error)))
    }

    /// The kind for "a worker waited on something the database cannot see".
    fn stuck(detail: String) -> Self {
        Self::common(Common::Stuck { detail })
    }

    /// The kind for "a call returned, and its session still holds a lock or an open
    /// transaction" ([`KitError::LeftBehind`], worded in `detail`).
    fn left_behind(detail: String) -> Self {
        Self::common(Common::LeftBehind { detail })
    }

    /// The kind's name, as a wrong fix's `expect:` line names it (`ReleasedTwice`,
    /// `HandlerFailed`).
    fn name(&self) -> String
    where
        Self: fmt::Debug,
    {
        match self.as_common() {
            Some(common) => common.name().to_string(),
            None => format!("{self:?}")
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or_default()
                .to_string(),
        }
    }
}

/// What a scenario caught (`kind`), and how the events were delivered when it did (`during`).
pub struct Violation<K, D> {
    pub kind: K,
    pub during: D,
    /// The step-by-step record, when the scenario was a scripted interleaving.
    pub trace: Option<Trace>,
}

impl<K: Explain<D>, D: Copy> Violation<K, D> {
    /// For `map_err`: the test could not run, during `during`.
    pub fn setup(during: D) -> impl FnOnce(KitError) -> Self {
        move |error| Violation {
            kind: K::setup(error),
            during,
            trace: None,
        }
    }

    /// For `map_err` on a judge's verdict: the kind it found, during `during`, with the trace of
    /// a scripted scenario (`None` for a barrier or a story told without one).
    pub fn caught(during: D, trace: Option<&Trace>) -> impl FnOnce(K) -> Self {
        let trace = trace.cloned();
        move |kind| Violation {
            kind,
            during,
            trace,
        }
    }

    /// Every fault scenario's last word, once its verdict on what the database holds passed.
    /// `hidden` is what the delivery the script failed (`fault`) reported instead of its error
    /// ([`Ran::apart_from_failed`](crate::Ran::apart_from_failed)): its transaction was rolled back, so a success it reports
    /// is an event lost, since the sender acks it and never delivers it again. With nothing
    /// hidden, the scenario passed, and its trace is offered to the chapters.
    pub fn unless_failure_hidden(
        hidden: Option<K::Outcome>,
        fault: Fault,
        during: D,
        trace: &Trace,
    ) -> Result<(), Self> {
        match hidden {
            Some(outcome) => Err(Self::caught(during, Some(trace))(K::common(
                Common::FailureHidden { outcome, fault },
            ))),
            None => {
                passing_trace(trace);
                Ok(())
            }
        }
    }

    /// A delivery that needed nothing the others held waited all the same: `waiting` (its
    /// aggregate, "ord-2") waited on `held` ("ord-1's row"), and one slow delivery holds up
    /// every other (a spec's `expect no wait`).
    pub fn waited_on_a_neighbour(waiting: &str, held: &str, during: D, trace: &Trace) -> Self {
        Self::caught(during, Some(trace))(K::common(Common::WaitedOnANeighbour {
            waiting: waiting.into(),
            held: held.into(),
        }))
    }

    /// A script step that neither finished nor waited on a lock is the student's doing (a
    /// lock in the process, say), not a broken test: say so, with the trace so far. Any other
    /// error of the script is a setup failure.
    pub fn stuck_or_setup(error: KitError, trace: &Trace, during: D) -> Self {
        match error {
            KitError::Stuck { .. } => Violation {
                kind: K::stuck(error.to_string()),
                during,
                trace: Some(trace.clone()),
            },
            KitError::LeftBehind { .. } => Violation {
                kind: K::left_behind(error.to_string()),
                during,
                trace: Some(trace.clone()),
            },
            other => Self::setup(during)(other),
        }
    }
}

impl<K: Explain<D>, D> fmt::Display for Violation<K, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.explain(&self.during, f)?;
        if let Some(trace) = &self.trace {
            write!(f, "\n\nWhat happened, step by step:\n{trace}")?;
        }
        Ok(())
    }
}

/// A failing test prints its error with `{:?}`: make that the teaching message, not a dump.
impl<K: Explain<D>, D> fmt::Debug for Violation<K, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A test's result, its violation first written as the running test's verdict where
/// `WORKBOOK_VERDICTS` asks (the test is the thread's name, as libtest names a test's thread):
/// what a lesson's generated test returns.
pub fn reported<K: Explain<D> + fmt::Debug, D>(
    result: Result<(), Violation<K, D>>,
) -> Result<(), Violation<K, D>> {
    if let Err(violation) = &result
        && let Some(name) = std::thread::current().name()
    {
        violation.report_as(name);
    }
    result
}

impl<K: Explain<D> + fmt::Debug, D> Violation<K, D> {
    /// Writes the violation as the test `test`'s verdict, as data, where `WORKBOOK_VERDICTS`
    /// asks for it: the harness hands it the value its test returned.
    pub fn report_as(&self, test: &str) {
        let worded = reported::worded(|| Explained(self).to_string());
        Reported::new(self.kind.name(), worded, self.trace.as_ref()).write_as(test);
    }
}

/// A violation's message without its trace.
struct Explained<'a, K, D>(&'a Violation<K, D>);

impl<K: Explain<D>, D> fmt::Display for Explained<'_, K, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.kind.explain(&self.0.during, f)
    }
}

impl<K: Explain<D> + fmt::Debug, D> std::error::Error for Violation<K, D> {}

/// Why a [`KitError::LeftBehind`] matters, for every lesson's message: `what` is what the code
/// under test calls one call of it (a delivery, a poll, a step).
pub fn left_behind(what: &str) -> String {
    format!(
        "A {what} ends when its transaction does, whatever happened in it: a lock that outlives \
         the transaction, or a transaction opened and never ended, is still held by the pooled \
         connection long after the {what} returned.\n{}",
        see("03", "What a failed delivery leaves behind")
    )
}

/// What every lesson's `violation.rs` opens with, written once: `kit::violations!(chapter "08")`
/// writes its `Violation` (a `ViolationKind` of the lesson's, told for its `Delivery`, both
/// named where the macro is called) and `see`, where the lesson's chapter explains a section.
#[macro_export]
macro_rules! violations {
    (chapter $number:literal) => {
        /// What a scenario caught, and how its deliveries ran when it did. Its `Display` (and
        /// its `Debug`, which is what a failing test prints) is the teaching message: what
        /// happened, why it is wrong, and where the book explains it.
        pub type Violation = $crate::Violation<ViolationKind, Delivery>;

        /// Where this lesson's chapter explains `section`, as a message's last line cites it.
        fn see(section: &str) -> String {
            $crate::see($number, section)
        }
    };
}

/// `See chapter 2 of the book (book/src/02-on-conflict.md), "The insert is the decision";
/// `cargo workbook hint 02` has hints.` The chapter comes from the catalog, by lesson number.
pub fn see(lesson: &str, section: &str) -> String {
    reported::cite(lesson, section);
    match catalog::find(lesson) {
        Ok(lesson) => format!(
            "See chapter {} of the book ({}), \"{section}\"; `cargo workbook hint {}` has hints.",
            lesson.number.trim_start_matches('0'),
            lesson.chapter(),
            lesson.number
        ),
        Err(_) => format!("See the book, \"{section}\"."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pointer_names_the_chapter_its_file_the_section_and_the_hint_command() {
        assert_eq!(
            see("02", "The insert is the decision"),
            "See chapter 2 of the book (book/src/02-on-conflict.md), \"The insert is the \
             decision\"; `cargo workbook hint 02` has hints."
        );
    }
}
