//! What every lesson's intended-failure tests share (they live in each lesson's `checks.rs`).

use kit::{Explain, Violation};

/// Said whenever a shipped exercise unexpectedly passes: the usual reason is a student who
/// solved it and then ran the root suite.
pub const SHIPPED: &str = "This checks the exercise *as shipped*. If you solved it, that is \
                           why: run your own tests with `cargo test -p exercise-NN-…`, and \
                           restore the shipped files (`cargo workbook reset NN`) before running \
                           the root suite.";

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

/// The trace a scripted scenario recorded, for a snapshot (the book shows those files).
pub fn trace<K, D>(violation: Violation<K, D>) -> Result<String, Complaint> {
    let trace = violation.trace.map(|trace| trace.to_string());
    trace.ok_or_else(|| Complaint("a scripted scenario records its trace".into()))
}

/// The trace a passing scripted scenario recorded, for a snapshot of the solution (the chapters
/// show those): a failure is a complaint.
pub async fn passing<K: Explain<D>, D>(
    scenario: impl std::future::Future<Output = Result<(), Violation<K, D>>>,
) -> Result<String, Complaint> {
    let (result, traces) = kit::passing_traces(scenario).await;
    result.map_err(|violation| Complaint(format!("the solution failed: {violation}")))?;
    match traces.as_slice() {
        [(_, trace)] => Ok(trace.clone()),
        other => Err(Complaint(format!(
            "expected one passing trace, got {}",
            other.len()
        ))),
    }
}

/// Snapshots named as given, in a `snapshots/` folder beside the lesson's `checks.rs`.
#[macro_export]
macro_rules! snapshot {
    ($name:expr, $text:expr) => {{
        let text: String = $text;
        insta::with_settings!({ prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, text);
        })
    }};
}
