//! A lesson, as the kit knows it: one contract. A lesson says how its event is read and shown,
//! which specs it can judge, how it plays and judges one permutation (what it observes, its
//! rule, its words), and which scenarios it still writes in Rust. Everything else (its shipped
//! specs, its list of tests, a test played by name, a student's own spec, the test binary) the
//! kit does from that, here and in the harness, the same for every lesson.

use std::any::{Any, TypeId};
use std::fmt;
use std::future::Future;
use std::sync::Mutex;

use super::harness::{Listed, Rust};
use super::spec::{Feed, Permutation, Run, Shipped, Spec, SpecError};
use super::subject::{Handler, Subject};
use crate::words::teaching::{Explain, Violation};

/// What a lesson is to the kit.
pub trait Lesson: Sized + 'static {
    /// The lesson crate's folder, `env!("CARGO_MANIFEST_DIR")`: its specs are in `specs/`.
    const FOLDER: &'static str;
    /// What a delivery carries: a spec's `deliver {JSON}`, read by `FEED`.
    type Event: Clone + Send + 'static;
    /// What the handler answers.
    type Output: Send + 'static;
    /// How a failure's message tells the deliveries: a permutation's `story` line, at the least.
    type Delivery: Copy + From<&'static str> + 'static;
    /// What the lesson's rule can find broken, in its words.
    type Kind: Explain<Self::Delivery> + fmt::Debug + 'static;

    /// How a spec's deliveries reach the handler: read as the lesson reads a line of
    /// `cargo workbook deliver`, shown in a trace, the handler's answer described.
    const FEED: Feed<Self::Event, Self::Output>;
    /// How a failure in a student's own spec tells the deliveries (`cargo workbook break`).
    const YOURS: &'static str;
    /// The scenarios data cannot say yet, played by [`Lesson::play_rust`].
    const RUST: &'static [Rust] = &[];

    /// A spec the lesson can judge, or why not, with its line: every shipped spec is checked
    /// with it, as a student's is.
    fn check(spec: &Spec) -> Result<(), SpecError>;

    /// Plays one permutation against `subject` and judges what happened.
    fn play<H: Handler<Self::Event, Output = Self::Output>>(
        subject: Subject<H>,
        run: Run<'_, Self::Delivery>,
    ) -> impl Future<Output = Result<(), Violation<Self::Kind, Self::Delivery>>>;

    /// Plays the scenario in Rust named `name` (one of [`Lesson::RUST`], a case's full name).
    fn play_rust<H: Handler<Self::Event, Output = Self::Output>>(
        name: &'static str,
        subject: Subject<H>,
    ) -> impl Future<Output = Result<(), Violation<Self::Kind, Self::Delivery>>>;
}

/// What a lesson's test returns.
pub type Verdict<L> = Result<(), Violation<<L as Lesson>::Kind, <L as Lesson>::Delivery>>;

/// The lesson's shipped specs, read and checked once.
pub fn shipped<L: Lesson>() -> &'static Shipped {
    once::<L, Shipped>(|| Shipped::read(L::FOLDER, L::check))
}

/// The lesson's tests, listed once: its specs' `test` lines, then its scenarios in Rust.
pub fn listed<L: Lesson>() -> &'static Listed {
    once::<L, Listed>(|| Listed::new(shipped::<L>(), L::RUST))
}

/// The test `test` against `subject`, as `cargo test` plays it.
pub async fn play<L: Lesson, H: Handler<L::Event, Output = L::Output>>(
    test: &str,
    subject: Subject<H>,
) -> Verdict<L> {
    let listed = listed::<L>().test(test);
    match listed.spec {
        Some((file, test)) => spec_test::<L, H>(subject, file, test).await,
        None => L::play_rust(listed.name, subject).await,
    }
}

/// The shipped permutation of spec `file` whose `test` line names `test`, against `subject`.
pub async fn spec_test<L: Lesson, H: Handler<L::Event, Output = L::Output>>(
    subject: Subject<H>,
    file: &str,
    test: &str,
) -> Verdict<L> {
    let (spec, permutation, story) = shipped::<L>().test(file, test);
    play_told::<L, H>(subject, spec, permutation, story).await
}

/// A permutation of a spec of the student's own (`cargo workbook break`), judged by the same
/// rule.
pub async fn your_spec<L: Lesson, H: Handler<L::Event, Output = L::Output>>(
    subject: Subject<H>,
    spec: &Spec,
    permutation: &Permutation,
) -> Verdict<L> {
    play_told::<L, H>(subject, spec, permutation, L::YOURS).await
}

/// Plays a permutation, its failures telling the deliveries as `story`.
async fn play_told<L: Lesson, H: Handler<L::Event, Output = L::Output>>(
    subject: Subject<H>,
    spec: &Spec,
    permutation: &Permutation,
    story: &'static str,
) -> Verdict<L> {
    let run = Run {
        spec,
        permutation,
        during: L::Delivery::from(story),
    };
    let cuts = spec.cuts_after_every_commit(permutation);
    super::spec::at_each_commit(cuts, || L::play(subject.clone(), run)).await
}

/// One `T` per lesson, made once by `make` and kept for the process: a lesson's specs and list.
fn once<L: 'static, T: Send + Sync + 'static>(make: fn() -> T) -> &'static T {
    type Made = Vec<((TypeId, TypeId), &'static (dyn Any + Send + Sync))>;
    static MADE: Mutex<Made> = Mutex::new(Vec::new());
    let key = (TypeId::of::<L>(), TypeId::of::<T>());
    let found = |made: &Made| {
        let found = made.iter().find(|(k, _)| *k == key);
        found.and_then(|(_, value)| value.downcast_ref::<T>())
    };
    if let Some(value) = found(&MADE.lock().unwrap_or_else(|e| e.into_inner())) {
        return value;
    }
    // Made without the lock: a lesson's list reads its specs, made the same way. Two tests
    // that race here both make one; the first kept is the one every caller gets.
    let value: &'static T = Box::leak(Box::new(make()));
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(kept) = found(&made) {
        return kept;
    }
    made.push((key, value));
    value
}
