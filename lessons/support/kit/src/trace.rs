use std::cell::RefCell;
use std::fmt;
use std::future::Future;

/// What happened in a scripted interleaving, one step per line, in the order the script
/// observed it: which session did what, and which of them had to wait for whom. It reads like
/// the expected output of PostgreSQL's isolation tester, and it is what a lesson snapshots and
/// what its chapter shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    lines: Vec<String>,
}

impl Trace {
    /// `session` did `what`.
    pub fn step(&mut self, session: &str, what: impl fmt::Display) {
        self.lines.push(format!("{session:>9}: {what}"));
    }

    /// A line that belongs to no session: a check made after the script, say.
    pub fn note(&mut self, what: impl fmt::Display) {
        self.lines.push(format!("{:>9}  {what}", "--"));
    }
}

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in &self.lines {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

tokio::task_local! {
    /// Set while [`passing_traces`] records: the traces of scripted scenarios that passed.
    static PASSING: RefCell<Vec<(String, String)>>;
}

/// A scripted scenario that passed offers its trace under `name`. Only the maintainers' checks
/// keep it (for the chapters, through [`passing_traces`]); a student's tests do not compare it
/// with anything, since a correct handler other than the solution may interleave differently
/// (wait on another session, say) and must pass all the same.
pub fn passing_trace(name: &str, trace: &Trace) {
    let _ = PASSING.try_with(|kept| {
        kept.borrow_mut()
            .push((name.to_string(), trace.to_string()))
    });
}

/// Runs `scenario` and returns its result with the traces its passing scripts offered.
pub async fn passing_traces<F: Future>(scenario: F) -> (F::Output, Vec<(String, String)>) {
    PASSING
        .scope(RefCell::new(Vec::new()), async {
            let output = scenario.await;
            (output, PASSING.with(|kept| kept.take()))
        })
        .await
}
