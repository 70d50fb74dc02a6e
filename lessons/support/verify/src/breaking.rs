//! "Break it yourself": a student's spec, played against the shipped exercise and the solution
//! (`cargo workbook break NN FILE`), and what it showed. A spec exposes the race when some
//! permutation fails the exercise for the lesson's reason and passes the solution; otherwise the
//! student hears what happened instead, permutation by permutation.

use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;

use kit::spec::{Side, Spec, SpecError};
use kit::{Common, Explain, KitError, Violation};

/// What one side did with one permutation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Showed {
    /// The lesson's rule held; the trace of what ran.
    Holds { trace: String },
    /// The rule broke: the violation's kind, whether it is the lesson's reason, its message.
    Fails {
        kind: String,
        the_lessons_reason: bool,
        message: String,
    },
    /// The schedule itself could not be played to its end (a scripted step that waits, a
    /// delivery left waiting when the permutation ends): the schedule's doing, not a handler's.
    CouldNotFinish(String),
    /// The test could not run (no server, a setup block that fails).
    CouldNotRun(String),
}

impl Showed {
    /// What a scenario's result showed, `intended` saying which violations are the lesson's
    /// reason.
    pub fn of<K: Explain<D> + std::fmt::Debug, D>(
        result: Result<(), Violation<K, D>>,
        intended: fn(&K) -> bool,
        traces: Vec<String>,
    ) -> Showed {
        let violation = match result {
            Ok(()) => {
                return Showed::Holds {
                    trace: traces.into_iter().last().unwrap_or_default(),
                };
            }
            Err(violation) => violation,
        };
        if let Some(Common::Setup(error)) = violation.kind.as_common() {
            return match **error {
                KitError::ScriptedStepWaits { .. } | KitError::ScheduleEnds { .. } => {
                    Showed::CouldNotFinish(error.to_string())
                }
                _ => Showed::CouldNotRun(violation.to_string()),
            };
        }
        Showed::Fails {
            kind: kind_name(&violation.kind),
            the_lessons_reason: intended(&violation.kind),
            message: violation.to_string(),
        }
    }
}

/// What `scenario` showed, its passing trace kept.
pub async fn show<K: Explain<D> + std::fmt::Debug, D>(
    scenario: impl Future<Output = Result<(), Violation<K, D>>>,
    intended: fn(&K) -> bool,
) -> Showed {
    let (result, traces) = kit::passing_traces(scenario).await;
    let traces = traces.iter().map(ToString::to_string).collect();
    Showed::of(result, intended, traces)
}

/// A violation's kind by name, as a spec's `expect` line writes it: `CreditedMoreThanOnce`,
/// or a common kind's own name (`HandlerFailed`, `FailureHidden`).
pub fn kind_name<K: Explain<D> + std::fmt::Debug, D>(kind: &K) -> String {
    if let Some(common) = kind.as_common() {
        return common.name().to_string();
    }
    let debug = format!("{kind:?}");
    debug
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or_default()
        .to_string()
}

/// A lesson whose scenarios are specs: how it checks a spec makes sense for it (the events its
/// deliveries carry) and plays one permutation against one side.
pub struct Breakable {
    pub number: &'static str,
    pub check: fn(&Spec) -> Result<(), SpecError>,
    pub play: for<'a> fn(&'a Spec, usize, Side) -> Showing<'a>,
}

/// What a lesson's `play` returns: one side's play of one permutation, to be awaited.
pub type Showing<'a> = Pin<Box<dyn Future<Output = Showed> + 'a>>;

/// A lesson's `BREAK` entry, in its `checks.rs`: its contract (`$lesson`) reads a spec for what
/// the lesson can judge and plays one permutation; the module's own `exercise()`, `solution()`
/// and `is_intended` give the sides and the lesson's reason.
macro_rules! breakable {
    ($number:literal, lesson $lesson:path) => {
        /// `cargo workbook break`: a spec of the student's own, checked for what this lesson
        /// can judge, then played against either side.
        pub const BREAK: $crate::breaking::Breakable = $crate::breaking::Breakable {
            number: $number,
            check: kit::contract::check::<$lesson>,
            play: play_yours,
        };

        fn play_yours(
            spec: &kit::spec::Spec,
            at: usize,
            side: kit::spec::Side,
        ) -> $crate::breaking::Showing<'_> {
            use $crate::breaking::show;
            Box::pin(async move {
                let permutation = &spec.permutations[at];
                match side {
                    kit::spec::Side::Exercise => {
                        show(
                            kit::contract::your_spec::<$lesson, _>(exercise(), spec, permutation),
                            is_intended,
                        )
                        .await
                    }
                    kit::spec::Side::Solution => {
                        show(
                            kit::contract::your_spec::<$lesson, _>(solution(), spec, permutation),
                            is_intended,
                        )
                        .await
                    }
                }
            })
        }
    };
}
pub(crate) use breakable;

/// The lessons `break` plays (the others' scenarios are still code).
pub const BREAKABLE: &[Breakable] = &[
    crate::lesson_01::BREAK,
    crate::lesson_02::BREAK,
    crate::lesson_03::BREAK,
    crate::lesson_04::BREAK,
    crate::lesson_05::BREAK,
    crate::lesson_06::BREAK,
    crate::lesson_07::BREAK,
    crate::lesson_08::BREAK,
    crate::lesson_10::BREAK,
    crate::lesson_11::BREAK,
    crate::lesson_12::BREAK,
    crate::lesson_13::BREAK,
];

/// One permutation, played against both sides.
#[derive(Debug, Clone)]
pub struct Played {
    pub order: String,
    pub line: usize,
    pub exercise: Showed,
    pub solution: Showed,
    /// Fault steps that found their delivery already returned.
    pub never_ran: Vec<String>,
    /// The spec's own `expect exercise|solution` lines for this permutation, each met or not.
    pub expectations: Vec<String>,
}

impl Played {
    /// The exercise fails for the lesson's reason, and the solution passes.
    pub fn exposes(&self) -> bool {
        matches!(
            self.exercise,
            Showed::Fails {
                the_lessons_reason: true,
                ..
            }
        ) && matches!(self.solution, Showed::Holds { .. })
    }
}

/// Reads `text` as a spec for lesson `number`, or says why not, with the line.
pub fn read(lesson: &Breakable, text: &str) -> Result<Spec, SpecError> {
    let spec = Spec::parse(text)?;
    (lesson.check)(&spec)?;
    Ok(spec)
}

/// Plays every permutation of `spec` against the shipped exercise, then the solution.
pub async fn play(lesson: &Breakable, spec: &Spec) -> Vec<Played> {
    let mut played = Vec::new();
    for (at, permutation) in spec.permutations.iter().enumerate() {
        let (exercise, mut never_ran) =
            kit::steps_that_never_ran((lesson.play)(spec, at, Side::Exercise)).await;
        let (solution, on_the_solution) =
            kit::steps_that_never_ran((lesson.play)(spec, at, Side::Solution)).await;
        for step in on_the_solution {
            if !never_ran.contains(&step) {
                never_ran.push(step);
            }
        }
        let expectations = (permutation.expect.iter())
            .map(|expected| {
                let showed = match expected.side {
                    Side::Exercise => &exercise,
                    Side::Solution => &solution,
                };
                met(expected, showed)
            })
            .collect();
        played.push(Played {
            order: permutation.order(),
            line: permutation.line,
            exercise,
            solution,
            never_ran,
            expectations,
        });
    }
    played
}

/// The report, in words: whether the spec exposes the race, and if not, what each permutation
/// showed instead. `unplayed` are the spec's steps no permutation names.
pub fn report(number: &str, played: &[Played], unplayed: &[String]) -> String {
    let mut text = String::new();
    for one in played {
        let _ = writeln!(
            text,
            "permutation `{}` (line {}):\n  the shipped exercise: {}\n  the solution: {}",
            one.order,
            one.line,
            said(&one.exercise),
            said(&one.solution)
        );
        for step in &one.never_ran {
            let _ = writeln!(text, "  {step}");
        }
        for line in &one.expectations {
            let _ = writeln!(text, "  {line}");
        }
        let _ = writeln!(text, "  → {}\n", finding(number, one));
    }
    for step in unplayed {
        let _ = writeln!(
            text,
            "note: step `{step}` is in no permutation, so it never ran."
        );
    }
    match played.iter().find(|one| one.exposes()) {
        Some(one) => {
            let _ = writeln!(
                text,
                "✓ Your spec exposes the race: `{}` fails the shipped exercise for lesson \
                 {number}'s reason, and the solution passes it.",
                one.order
            );
        }
        None => {
            let _ = writeln!(
                text,
                "✗ Your spec does not expose the race yet: no permutation fails the shipped \
                 exercise for lesson {number}'s reason while the solution passes."
            );
        }
    }
    text
}

/// Whether one of the spec's `expect` lines was met, in words.
fn met(expected: &kit::spec::Expectation, showed: &Showed) -> String {
    use kit::spec::Verdict;
    let side = match expected.side {
        Side::Exercise => "exercise",
        Side::Solution => "solution",
    };
    let (wanted, ok) = match (&expected.verdict, showed) {
        (Verdict::Holds, Showed::Holds { .. }) => ("holds".to_string(), true),
        (Verdict::Holds, _) => ("holds".to_string(), false),
        (
            Verdict::Fails(kind),
            Showed::Fails {
                kind: shown,
                message,
                ..
            },
        ) => (
            kind.clone(),
            expected.verdict.names(shown)
                && (expected.words.iter()).all(|w| message.contains(w.as_str())),
        ),
        (Verdict::Fails(kind), _) => (kind.clone(), false),
    };
    match ok {
        true => format!("your `expect {side} {wanted}`: met"),
        false => format!("your `expect {side} {wanted}`: not met (see above)"),
    }
}

fn said(showed: &Showed) -> String {
    match showed {
        Showed::Holds { .. } => "holds (the lesson's rule was kept)".into(),
        Showed::Fails {
            kind,
            the_lessons_reason: true,
            ..
        } => format!("fails with {kind}, the lesson's reason"),
        Showed::Fails { kind, .. } => format!("fails with {kind}, not the lesson's reason"),
        Showed::CouldNotFinish(_) => "could not finish".into(),
        Showed::CouldNotRun(_) => "could not run".into(),
    }
}

/// What one permutation means for the spec, in a sentence or two.
fn finding(number: &str, one: &Played) -> String {
    match (&one.exercise, &one.solution) {
        (Showed::Fails { message, .. }, _) if one.exposes() => format!(
            "it exposes the race. What the shipped exercise was told:\n{}",
            indented(message)
        ),
        (Showed::CouldNotFinish(why), _) | (_, Showed::CouldNotFinish(why)) => {
            format!("it could not finish: {why}")
        }
        (Showed::CouldNotRun(why), _) | (_, Showed::CouldNotRun(why)) => {
            format!("it could not run: {why}")
        }
        (Showed::Holds { trace }, Showed::Holds { .. }) => format!(
            "both passed: this order does not tell the shipped exercise from the solution, \
             so it exposes nothing. Look where the deliveries meet in what the shipped exercise \
             did:\n{}",
            indented(trace)
        ),
        (_, Showed::Fails { message, .. }) => format!(
            "the solution fails it too, so this order asks for something no correct handler \
             does: a wrong expectation, not a race. What the solution was told:\n{}",
            indented(message)
        ),
        (Showed::Fails { message, .. }, Showed::Holds { .. }) => format!(
            "the shipped exercise fails, but not for lesson {number}'s reason (the race the \
             chapter teaches), so this exposes something else. What it was told:\n{}",
            indented(message)
        ),
    }
}

fn indented(text: &str) -> String {
    (text.lines())
        .map(|line| format!("      {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests;
