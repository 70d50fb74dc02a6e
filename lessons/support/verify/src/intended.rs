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
pub fn trace<K, D>(violation: Violation<K, D>) -> Result<String, Complaint> {
    let trace = violation.trace.map(|trace| trace.to_string());
    trace.ok_or_else(|| Complaint("a scripted scenario records its trace".into()))
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
) -> Result<String, Complaint> {
    let (result, traces) = kit::passing_traces(scenario).await;
    result.map_err(|violation| Complaint(format!("the solution failed: {violation}")))?;
    match traces.as_slice() {
        [trace] => Ok(trace.clone()),
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
        let text: String = $text;
        insta::with_settings!({ prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, text);
        })
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
                (Verdict::Fails(kind), Err(caught))
                    if crate::breaking::kind_name(&caught.kind) == *kind
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
