//! What every lesson's intended-failure tests share (they live in each lesson's `checks.rs`).

use kit::{Explain, Violation};

/// Said whenever a shipped exercise unexpectedly passes. These checks judge the runner's copy
/// of the exercise as shipped, never exercises/ (a student's solved exercise cannot make them
/// fail), so the copy itself was changed: most often blessed from an exercises/ folder that held
/// a fix.
pub const SHIPPED: &str = "This checks the exercise as shipped: the runner's copy in \
                           lessons/support/runner/shipped/ (what `cargo workbook reset NN` \
                           restores), not exercises/. That copy passes, so it holds a fix: if it \
                           was blessed from a solved exercises/ folder, `git checkout \
                           lessons/support/runner/shipped` puts it back.";

pub use crate::wrong_fix::Complaint;

/// The exercise must fail, and for the lesson's reason (`why`): a setup error or any other
/// violation does not count.
pub fn expect<K: Explain<D>, D>(
    result: Result<(), Violation<K, D>>,
    intended: fn(&K) -> bool,
    why: &str,
) -> Result<Violation<K, D>, Complaint> {
    match result {
        Err(violation) if intended(&violation.kind) => Ok(violation),
        Err(violation) => Err(Complaint(format!(
            "expected a failure because {why}, but it failed otherwise: {violation}"
        ))),
        Ok(()) => Err(Complaint(format!(
            "expected a failure because {why}, but it passed. {SHIPPED}"
        ))),
    }
}

/// A solution passes every test of its lesson's `exercise-tests.rs` (`tests`, played by `play`),
/// all at once and every round, as its own test binary would run them: otherwise a complaint
/// naming each test that failed, with what it said.
pub async fn passes_every_test<K, D, Fut>(
    tests: &'static [&'static str],
    play: impl Fn(&'static str) -> Fut,
) -> Result<(), Complaint>
where
    K: Explain<D>,
    Fut: std::future::Future<Output = Result<(), Violation<K, D>>>,
{
    let results = futures_util::future::join_all(tests.iter().map(|&test| play(test))).await;
    let failed: Vec<String> = tests
        .iter()
        .zip(results)
        .filter_map(|(test, result)| Some(format!("{test}: {}", result.err()?)))
        .collect();
    match failed.as_slice() {
        [] => Ok(()),
        _ => Err(Complaint(format!(
            "the solution fails {} of its {} tests:\n\n{}",
            failed.len(),
            tests.len(),
            failed.join("\n\n")
        ))),
    }
}

/// The trace a scripted scenario recorded, for a snapshot (the book shows those files).
pub fn trace<K, D>(violation: Violation<K, D>) -> Result<Traced, Complaint> {
    let trace = violation.trace.map(|trace| Traced::of(&trace));
    trace.ok_or_else(|| Complaint("a scripted scenario records its trace".into()))
}

/// A trace as the book shows it: its text, and its statements as stable JSON when they were
/// recorded (every scenario the checks play through `play` records them).
#[derive(Debug, Clone)]
pub struct Traced {
    pub text: String,
    pub statements: Option<String>,
}

impl Traced {
    pub fn of(trace: &kit::Trace) -> Traced {
        Traced {
            text: trace.to_string(),
            statements: trace.statements().map(|s| stable(&s.to_json())),
        }
    }

    /// A whole message as a student reads it (a violation, its trace within), with the
    /// statements of its trace beside it.
    pub fn message(text: String, trace: Option<&kit::Trace>) -> Traced {
        Traced {
            text,
            statements: trace.and_then(|trace| Traced::of(trace).statements),
        }
    }

    /// The same, every UUID numbered ([`numbered_uuids`]) in the text and the statements alike.
    pub fn numbered(self) -> Traced {
        Traced {
            text: numbered_uuids(&self.text),
            statements: self.statements.as_deref().map(numbered_uuids),
        }
    }
}

impl From<String> for Traced {
    fn from(text: String) -> Traced {
        Traced {
            text,
            statements: None,
        }
    }
}

impl std::ops::Deref for Traced {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

/// `text` with every run of exactly 32 hexadecimal digits (a UUID without its dashes, as lesson
/// 06's charge ids hold one) numbered as [`numbered_uuids`] numbers UUIDs.
fn numbered_hex_ids(text: &str) -> String {
    let (mut out, mut seen, mut run): (String, Vec<String>, String) = Default::default();
    let mut flush = |run: &mut String, out: &mut String| {
        if run.len() == 32 {
            let number = match seen.iter().position(|known| known == run) {
                Some(index) => index + 1,
                None => {
                    seen.push(run.clone());
                    seen.len()
                }
            };
            out.push_str(&format!("{number:032}"));
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for ch in text.chars() {
        if ch.is_ascii_hexdigit() {
            run.push(ch);
        } else {
            flush(&mut run, &mut out);
            out.push(ch);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Recorded statements as JSON that reads the same from run to run: every UUID numbered, and
/// every timestamp (`'2026-12-05 11:20:48.280708+00'`, as a parameter shows one) written as its
/// distance from the first one seen, in whole seconds (`'T'`, `'T+31s'`), which is what a lease
/// or a window compares.
pub fn stable(json: &str) -> String {
    let numbered = numbered_hex_ids(&numbered_uuids(json));
    let stamp = |at: usize| -> Option<(usize, f64)> {
        let text = numbered.get(at..)?;
        let bytes = text.as_bytes();
        let shape = |i: usize, c: u8| bytes.get(i).is_some_and(|b| *b == c);
        let digits = |r: std::ops::Range<usize>| {
            r.into_iter()
                .all(|i| bytes.get(i).is_some_and(u8::is_ascii_digit))
        };
        if !(digits(0..4)
            && shape(4, b'-')
            && digits(5..7)
            && shape(7, b'-')
            && digits(8..10)
            && shape(10, b' ')
            && digits(11..13)
            && shape(13, b':')
            && digits(14..16)
            && shape(16, b':')
            && digits(17..19))
        {
            return None;
        }
        let end = text.find("+00")? + 3;
        let date = |r: std::ops::Range<usize>| text[r].parse::<f64>().unwrap_or(0.0);
        let seconds = date(8..10) * 86_400.0
            + date(11..13) * 3_600.0
            + date(14..16) * 60.0
            + text[17..end - 3].parse::<f64>().unwrap_or(0.0);
        Some((end, seconds))
    };
    let (mut out, mut first, mut at) = (String::new(), None::<f64>, 0);
    while at < numbered.len() {
        // A parameter: a JSON string holding a quoted literal (`"'2026-…+00'"`); a timestamp
        // written into a statement's own text is the scenario's, and stays.
        let parameter = at >= 2 && numbered.get(at - 2..at) == Some("\"'");
        if let Some((length, seconds)) = stamp(at).filter(|_| parameter) {
            let from = *first.get_or_insert(seconds);
            match (seconds - from).round() as i64 {
                0 => out.push('T'),
                n => out.push_str(&format!("T{n:+}s")),
            }
            at += length;
        } else {
            let ch = numbered[at..]
                .chars()
                .next()
                .expect("at is a char boundary");
            out.push(ch);
            at += ch.len_utf8();
        }
    }
    out
}

/// `text` with every UUID (a random id, as lesson 06's shipped exercise draws them) replaced by
/// a numbered stand-in of the same length, `00000000-0000-4000-8000-000000000001` for the first
/// one seen and so on: a snapshot stays the same from run to run, wraps as the trace did, and
/// still shows which ids were the same and which were not.
pub fn numbered_uuids(text: &str) -> String {
    const SHAPE: &[u8] = b"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
    let is_uuid = |window: &[u8]| {
        window.iter().zip(SHAPE).all(|(b, s)| match s {
            b'-' => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
    };
    let bytes = text.as_bytes();
    let (mut out, mut seen): (String, Vec<&str>) = (String::new(), Vec::new());
    let mut at = 0;
    while at < bytes.len() {
        let end = at + SHAPE.len();
        if end <= bytes.len() && is_uuid(&bytes[at..end]) {
            let uuid = &text[at..end];
            let number = match seen.iter().position(|known| *known == uuid) {
                Some(index) => index + 1,
                None => {
                    seen.push(uuid);
                    seen.len()
                }
            };
            out.push_str(&format!("00000000-0000-4000-8000-{number:012}"));
            at = end;
        } else {
            let ch = text[at..].chars().next().expect("at is a char boundary");
            out.push(ch);
            at += ch.len_utf8();
        }
    }
    out
}

/// The trace a passing scripted scenario recorded, for a snapshot of the solution (the chapters
/// show those): a failure is a complaint.
pub async fn passing<K: Explain<D>, D>(
    scenario: impl std::future::Future<Output = Result<(), Violation<K, D>>>,
) -> Result<Traced, Complaint> {
    let (result, traces) = kit::passing_traces(scenario).await;
    result.map_err(|violation| Complaint(format!("the solution failed: {violation}")))?;
    match traces.as_slice() {
        [trace] => Ok(Traced::of(trace)),
        other => Err(Complaint(format!(
            "expected one passing trace, got {}",
            other.len()
        ))),
    }
}

#[test]
fn uuids_are_numbered_in_the_order_first_seen() {
    let text = "key 8f988a0d-a5df-46b0-bb14-0d04e2cff800, then 8DF2F664-e481-4b62-84e0-87dd5cb982c7 \
                and 8f988a0d-a5df-46b0-bb14-0d04e2cff800 again; ord-1:payment stays";
    assert_eq!(
        numbered_uuids(text),
        "key 00000000-0000-4000-8000-000000000001, then 00000000-0000-4000-8000-000000000002 \
         and 00000000-0000-4000-8000-000000000001 again; ord-1:payment stays"
    );
}

#[test]
fn recorded_statements_are_stable_from_run_to_run() {
    let json = r#"{"parameters": ["'2026-12-05 11:20:48.280708+00'", "'2026-12-05 11:21:19.408923+00'", "'ch_647b2e9740e547bdb4b22d8d507f0e45'"], "sql": "SELECT '2026-03-02 00:00:00+00'"}"#;
    assert_eq!(
        stable(json),
        r#"{"parameters": ["'T'", "'T+31s'", "'ch_00000000000000000000000000000001'"], "sql": "SELECT '2026-03-02 00:00:00+00'"}"#
    );
}

/// The trace of a test of `exercise-tests.rs`, played against one side (`exercise`,
/// `solution`, or a half-way subject such as `key_only`), snapshotted in the `snapshots/`
/// folder beside the lesson's `checks.rs` as `<side>_<test>.snap`: the test's own name, which
/// the chapter's includes then name too.
#[macro_export]
macro_rules! snapshot {
    ($side:ident: $test:literal, $text:expr) => {
        $crate::snapshot!(concat!(stringify!($side), "_", $test), $text)
    };
    ($name:expr, $text:expr) => {{
        let traced: $crate::intended::Traced = ($text).into();
        insta::with_settings!({ prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, traced.text);
        });
        // The same story statement by statement, beside it in `statements/`: what the book's
        // stepper plays.
        if let Some(statements) = traced.statements {
            insta::with_settings!({
                prepend_module_to_snapshot => false,
                snapshot_path => "statements",
            }, {
                insta::assert_snapshot!($name, statements);
            });
        }
    }};
}

/// Each spec's `expect` lines are what its test shows, permutation by permutation: against
/// the shipped exercise and the solution, the kind of violation they name, with their words, or
/// a rule that holds (for the solution, checked where every test is played against it). `specs` are the permutations the lesson plays (each spec's file and the
/// test its permutation names, as its list picks them: lessons that share specs play some of
/// them each); `play(name, test, side)` plays the test `test` of spec `name`.
pub async fn specs_show_what_they_expect<K, D, Fut>(
    shipped: &'static kit::spec::Shipped,
    specs: &'static [(&'static str, &'static str)],
    play: impl Fn(&'static str, &'static str, kit::spec::Side) -> Fut,
) -> Result<(), Complaint>
where
    K: Explain<D> + std::fmt::Debug,
    Fut: std::future::Future<Output = Result<(), Violation<K, D>>>,
{
    use kit::spec::Verdict;
    for &(name, test) in specs {
        let (_, permutation, _) = shipped.test(name, test);
        for expected in &permutation.expect {
            // `expect solution holds` is what the lesson's `solution_passes_every_test` checks
            // already, every round: played once there, not again here.
            if (expected.side, &expected.verdict) == (kit::spec::Side::Solution, &Verdict::Holds) {
                continue;
            }
            let result = play(name, test, expected.side).await;
            let showed = match (&expected.verdict, &result) {
                (Verdict::Holds, Ok(())) => continue,
                (Verdict::Fails(_), Err(caught))
                    if expected
                        .verdict
                        .names(&crate::breaking::kind_name(&caught.kind))
                        && (expected.words.iter()).all(|w| caught.to_string().contains(w)) =>
                {
                    continue;
                }
                (_, Ok(())) => "the rule held".to_string(),
                (_, Err(caught)) => caught.to_string(),
            };
            return Err(Complaint(format!(
                "specs/{name}, permutation `{}`, expects {:?} of the {:?}; the test \
                     showed: {showed}",
                permutation.order(),
                expected.verdict,
                expected.side
            )));
        }
    }
    Ok(())
}
