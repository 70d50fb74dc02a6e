//! A lesson, as the kit knows it: one contract. A lesson says how its event is read and shown,
//! which specs it can judge, what it reads the database through and how it readies it for a
//! spec's events, how it judges one permutation (what it observes, its rule, its words), and
//! which scenarios it still writes in Rust. Everything else (its shipped specs, its list of
//! tests, a fresh database for each, the workers released together round after round, a test
//! played by name, a student's own spec, the test binary) the kit does from that, here and in
//! the harness, the same for every lesson.

use std::any::{Any, TypeId};
use std::fmt;
use std::future::Future;
use std::sync::Mutex;

use super::barrier::release_together;
use super::harness::{Listed, Pick, Rust};
use super::spec::{Barrier, Feed, Permutation, Run, Shipped, Spec, SpecError};
use super::subject::{Handler, Subject};
use crate::error::KitError;
use crate::servers::database::TestDatabase;
use crate::words::delivery::{Round, rounds};
use crate::words::teaching::{Explain, Violation};

/// What a lesson is to the kit.
pub trait Lesson: Sized + 'static {
    /// The lesson crate's folder, `env!("CARGO_MANIFEST_DIR")`: its specs are in `specs/`.
    const FOLDER: &'static str;
    /// What a delivery carries: a spec's `deliver {JSON}`, read by `FEED`.
    type Event: Clone + Send + 'static;
    /// What the handler answers.
    type Output: Send + 'static;
    /// How a failure's message tells the deliveries: a permutation's `story` line, or a round
    /// of workers released together, at the least.
    type Delivery: Copy + From<&'static str> + From<Round> + 'static;
    /// What the lesson's rule can find broken, in its words.
    type Kind: Explain<Self::Delivery> + fmt::Debug + 'static;
    /// What the lesson reads a test's database through (its own session, never the handler's
    /// pool), opened once on each fresh database.
    type World: Send + 'static;

    /// How a spec's deliveries reach the handler: read as the lesson reads a line of
    /// `cargo workbook deliver`, shown in a trace, the handler's answer described.
    const FEED: Feed<Self::Event, Self::Output>;
    /// How a failure in a student's own spec tells the deliveries (`cargo workbook break`).
    const YOURS: &'static str;
    /// The scenarios data cannot say yet, played by [`Lesson::play_rust`].
    const RUST: &'static [Rust] = &[];
    /// The tests, in order, of a lesson that picks them from specs and scenarios it shares with
    /// other lessons (the order saga's four): each its own permutations, under its own names,
    /// its own races marked. None, and the lesson plays every test its specs name, then `RUST`.
    const PICKS: &'static [Pick] = &[];
    /// Whether the lesson judges workers released together (`barrier N workers, R
    /// rounds`), round by round ([`Lesson::judge_released`]); a spec that releases is refused
    /// otherwise.
    const RELEASES: bool = false;

    /// A spec the lesson can judge, or why not, with its line: every shipped spec is checked
    /// with it, as a student's is.
    fn check(spec: &Spec) -> Result<(), SpecError>;

    /// Opens what the lesson reads a fresh database through.
    fn open(db: &TestDatabase) -> impl Future<Output = Result<Self::World, KitError>>;

    /// Readies the database for `events`, before they are delivered: the rows they need (an
    /// account opened at zero). A released permutation readies each round's events in turn, on
    /// one database, so each round's rows are new. An event that needs no rows (an order the
    /// step has never seen) needs nothing here.
    fn ready(
        world: &mut Self::World,
        events: &[Self::Event],
    ) -> impl Future<Output = Result<(), KitError>> {
        let _ = (world, events);
        async { Ok(()) }
    }

    /// Plays one permutation of a spec against `subject`, on `db` (readied for the spec's
    /// events), and judges what happened.
    fn play<H: Handler<Self::Event, Output = Self::Output>>(
        subject: Subject<H>,
        db: &TestDatabase,
        world: &mut Self::World,
        run: Run<'_, Self::Delivery>,
    ) -> impl Future<Output = Verdict<Self>>;

    /// Judges one round of workers released together: what each delivered and returned
    /// (`delivered`, in worker order) and what the database shows.
    fn judge_released(
        world: &mut Self::World,
        delivered: Vec<(Self::Event, Self::Output)>,
        during: Self::Delivery,
    ) -> impl Future<Output = Verdict<Self>> {
        let _ = (world, delivered, during);
        async {
            unreachable!(
                "{}: a released permutation got past the check of a lesson that judges none",
                Self::FOLDER
            )
        }
    }

    /// What the workers of a released round were handed (`handed`, in worker order), as a
    /// failure's message tells it after "each with": "the same order.created".
    fn carried(handed: &[Self::Event]) -> String {
        let _ = handed;
        "the same event".into()
    }

    /// Plays the scenario in Rust named `name` (one of [`Lesson::RUST`], a case's full name):
    /// a lesson whose tests are all specs lists none, and writes nothing here.
    fn play_rust<H: Handler<Self::Event, Output = Self::Output>>(
        name: &'static str,
        subject: Subject<H>,
    ) -> impl Future<Output = Verdict<Self>> {
        let _ = subject;
        async move { unreachable!("{}: no scenario in Rust is named {name}", Self::FOLDER) }
    }
}

/// What a lesson's test returns.
pub type Verdict<L> = Result<(), Violation<<L as Lesson>::Kind, <L as Lesson>::Delivery>>;

/// The lesson's shipped specs, read and checked once.
pub fn shipped<L: Lesson>() -> &'static Shipped {
    once::<L, Shipped>(|| Shipped::read(L::FOLDER, check::<L>))
}

/// A spec the lesson can judge, or why not, with its line: [`Lesson::check`], and a released
/// permutation only for a lesson that judges one.
pub fn check<L: Lesson>(spec: &Spec) -> Result<(), SpecError> {
    let released = (spec.permutations.iter()).find(|p| p.barrier.is_some());
    if let Some(permutation) = released.filter(|_| !L::RELEASES) {
        return Err(SpecError {
            line: permutation.line,
            message: "`barrier` releases workers together round after round, and this \
                      lesson's rule does not judge such rounds: script the race with a \
                      `permutation` of its own instead"
                .into(),
        });
    }
    L::check(spec)
}

/// The lesson's tests, listed once: its picks, or its specs' `test` lines, then its scenarios
/// in Rust.
pub fn listed<L: Lesson>() -> &'static Listed {
    once::<L, Listed>(|| Listed::new(shipped::<L>(), L::RUST, L::PICKS))
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

/// Plays a permutation, its failures telling the deliveries as `story`: on a fresh database
/// readied for the spec's events, once, or once for every COMMIT a delivery makes when the spec
/// cuts after each; or, released, round after round.
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
    if let Some(barrier) = permutation.barrier {
        return released::<L, H>(subject, run, barrier).await;
    }
    let events = (spec.events(L::FOLDER, L::FEED.read))
        .unwrap_or_else(|e| panic!("checked before playing: {e}"));
    let cuts = spec.cuts_after_every_commit(permutation);
    super::spec::at_each_commit(cuts, || async {
        let (db, mut world) = super::play::prepare(&subject.schema, run.during, L::open).await?;
        (L::ready(&mut world, &events).await).map_err(Violation::setup(run.during))?;
        L::play(subject.clone(), &db, &mut world, run).await
    })
    .await
}

// ANCHOR: released
/// A released permutation: the essay's barrier, which the kit plays for every lesson. Each
/// round readies fresh events (their `{round}` the round's number) on one database, releases
/// the workers together, each with one of them and on a connection of its own, and hands what
/// each delivered and returned to the lesson's rule; the first round that breaks it ends the
/// test.
async fn released<L: Lesson, H: Handler<L::Event, Output = L::Output>>(
    subject: Subject<H>,
    run: Run<'_, L::Delivery>,
    barrier: Barrier,
) -> Verdict<L> {
    let Barrier { workers, rounds } = barrier;
    let rounds = self::rounds(rounds);
    // What each worker makes in `round`: the permutation's delivery `i`, round robin.
    let handed = |round: usize| -> Vec<L::Event> {
        let deliveries = run.spec.released_deliveries(run.permutation, round);
        let events: Vec<L::Event> = (deliveries.iter())
            .map(|json| {
                (L::FEED.read)(json).unwrap_or_else(|e| panic!("checked before playing: {e}"))
            })
            .collect();
        (0..workers)
            .map(|worker| events[worker % events.len()].clone())
            .collect()
    };
    // Told in every round's message, so made once: a test plays one permutation.
    let carrying: &'static str = String::leak(L::carried(&handed(1)));
    let told = |round| {
        L::Delivery::from(Round {
            workers,
            round,
            rounds,
            carrying,
        })
    };
    let set_up = Run {
        during: told(0),
        ..run
    };
    let (db, mut world) = super::play::prepare(&subject.schema, set_up.during, L::open).await?;
    set_up.set_up(&db).await?;
    let pool = (db.pool(workers as u32).await).map_err(Violation::setup(set_up.during))?;
    for round in 1..=rounds {
        let during = told(round);
        let events = handed(round);
        (L::ready(&mut world, &events).await).map_err(Violation::setup(during))?;
        let outcomes = release_together(workers, |worker| {
            subject.handler.call(pool.clone(), events[worker].clone())
        })
        .await;
        let delivered = events.into_iter().zip(outcomes).collect();
        L::judge_released(&mut world, delivered, during).await?;
    }
    Ok(())
}
// ANCHOR_END: released

/// What the workers of a released round delivered and returned (`delivered`, as
/// [`Lesson::judge_released`] gets it), grouped by what the rule judges apart (`key`: an order,
/// an account), in the order each first appears: each group's first event, and the outcomes of
/// all its deliveries.
pub fn grouped<E, O, K: PartialEq>(
    delivered: Vec<(E, O)>,
    key: impl Fn(&E) -> K,
) -> Vec<(E, Vec<O>)> {
    let mut groups: Vec<(E, Vec<O>)> = Vec::new();
    for (event, outcome) in delivered {
        match groups
            .iter_mut()
            .find(|(first, _)| key(first) == key(&event))
        {
            Some((_, outcomes)) => outcomes.push(outcome),
            None => groups.push((event, vec![outcome])),
        }
    }
    groups
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
