use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use crate::words::statements::Statements;

/// What happened in a scripted interleaving, one step per line, in the order the script
/// observed it: which session did what, and which of them had to wait for whom. It reads like
/// the expected output of PostgreSQL's isolation tester, and it is what a lesson snapshots and
/// what its chapter shows.
///
/// When the scenario's statements are recorded ([`crate::Statements`]), the trace carries them
/// too: the same story, statement by statement. Two traces are equal when their lines are.
///
/// Boxed: a trace travels in every failing test's `Result`, which must stay small.
#[derive(Debug, Clone, Default)]
pub struct Trace(Box<Lines>);

#[derive(Debug, Clone, Default)]
struct Lines {
    lines: Vec<TraceStep>,
    statements: Option<Arc<Statements>>,
}

/// One line of a trace, as data (what `cargo workbook check --format json` gives tools): the
/// session, what it did, whom it was seen waiting on, and what it returned, each kept as the
/// kit learned it rather than read back out of the line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TraceStep {
    /// `None` for a note that belongs to no session (a check made after the script).
    pub session: Option<String>,
    /// What the session did (a delivery as the lesson shows it, a statement), or the note;
    /// empty on a line that only says a session waits again or is done.
    pub what: String,
    /// The sessions it was seen waiting on, when the line says it waits.
    pub waiting_on: Vec<String>,
    /// What it returned, when the line says so: a delivery's outcome, a statement's rows.
    pub result: Option<String>,
    /// The line as the trace prints it.
    #[serde(skip)]
    line: String,
}

impl PartialEq for Trace {
    fn eq(&self, other: &Trace) -> bool {
        self.0.lines == other.0.lines
    }
}

impl Eq for Trace {}

impl Trace {
    /// A trace that carries `statements`, as they are recorded.
    pub(crate) fn recording(statements: Arc<Statements>) -> Trace {
        Trace(Box::new(Lines {
            lines: Vec::new(),
            statements: Some(statements),
        }))
    }

    /// From now on, the trace carries `statements`.
    pub(crate) fn carry(&mut self, statements: Arc<Statements>) {
        self.0.statements = Some(statements);
    }

    /// The scenario's statements, if they were recorded.
    pub fn statements(&self) -> Option<&Statements> {
        self.0.statements.as_deref()
    }

    /// Every line, as data.
    pub fn steps(&self) -> &[TraceStep] {
        &self.0.lines
    }

    fn push(
        &mut self,
        session: Option<&str>,
        what: String,
        waiting_on: &[String],
        result: Option<String>,
        line: String,
    ) {
        self.0.lines.push(TraceStep {
            session: session.map(str::to_string),
            what,
            waiting_on: waiting_on.to_vec(),
            result,
            line,
        });
    }

    /// `session` did `what`.
    pub fn step(&mut self, session: &str, what: impl fmt::Display) {
        let what = what.to_string();
        let line = format!("{session:>9}: {what}");
        self.push(Some(session), what, &[], None, line);
    }

    /// `session` did `what`, which returned `result` (a statement's rows, `→ 100`) at once.
    pub fn answered(&mut self, session: &str, what: impl fmt::Display, result: impl fmt::Display) {
        let (what, result) = (what.to_string(), result.to_string());
        let line = match result.as_str() {
            "" => format!("{session:>9}: {what}"),
            shown => format!("{session:>9}: {what} {shown}"),
        };
        self.push(Some(session), what, &[], Some(result), line);
    }

    /// `session` did `what`, and was seen waiting on the sessions `on`: `what <waiting on …>`,
    /// or `<now waiting on …>` with nothing new done (`what` empty).
    pub fn waits(&mut self, session: &str, what: impl fmt::Display, on: &[String]) {
        let what = what.to_string();
        let line = match what.as_str() {
            "" => format!("{session:>9}: <now waiting on {}>", on.join(", ")),
            what => format!("{session:>9}: {what} <waiting on {}>", on.join(", ")),
        };
        self.push(Some(session), what, on, None, line);
    }

    /// `session` was seen waiting on `on`, as the kit's own words say (`what`, the whole line).
    pub(crate) fn waits_in_words(&mut self, session: &str, what: String, on: &[String]) {
        let line = format!("{session:>9}: {what}");
        self.push(Some(session), what, on, None, line);
    }

    /// `session`'s call returned `result`: `<done> result`.
    pub fn done(&mut self, session: &str, result: impl fmt::Display) {
        let result = result.to_string();
        let line = match result.as_str() {
            "" => format!("{session:>9}: <done>"),
            shown => format!("{session:>9}: <done> {shown}"),
        };
        self.push(Some(session), String::new(), &[], Some(result), line);
    }

    /// A line that belongs to no session: a check made after the script, say.
    pub fn note(&mut self, what: impl fmt::Display) {
        let what = what.to_string();
        let line = format!("{:>9}  {what}", "--");
        self.push(None, what, &[], None, line);
    }
}

/// The widest a trace line gets. The book's code column shows about 85 characters at a window
/// 1280 pixels wide, and a trace whose punchline is scrolled out of sight teaches nothing.
const WIDTH: usize = 80;

/// Where every line's text starts: after the session's name, right-aligned in nine columns,
/// and ": ".
const TEXT_STARTS: usize = 11;

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in &self.0.lines {
            for part in wrapped(&step.line) {
                writeln!(f, "{part}")?;
            }
        }
        Ok(())
    }
}

/// `line` broken between words to at most [`WIDTH`] characters, the parts after the first
/// indented two columns past where its text starts. A single word longer than that stays whole.
fn wrapped(line: &str) -> Vec<String> {
    if line.chars().count() <= WIDTH {
        return vec![line.to_string()];
    }
    let split = line
        .char_indices()
        .nth(TEXT_STARTS)
        .map_or(line.len(), |(i, _)| i);
    // A session name longer than the column pushes the text right: its separating space
    // belongs to the prefix, or the first word would be glued to the name.
    let split = split + line[split..].len() - line[split..].trim_start_matches(' ').len();
    let (prefix, text) = line.split_at(split);
    let continued = " ".repeat(TEXT_STARTS + 2);
    let mut parts = vec![prefix.to_string()];
    for word in text.split(' ') {
        let last = parts.last_mut().expect("at least the prefix");
        let starts_line = last.len() == prefix.len() || *last == continued;
        if starts_line {
            last.push_str(word);
        } else if last.chars().count() + 1 + word.chars().count() <= WIDTH {
            last.push(' ');
            last.push_str(word);
        } else {
            parts.push(format!("{continued}{word}"));
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_wrapped_between_words_under_its_text() {
        let mut trace = Trace::default();
        trace.note(
            "ord-1 is confirmed, 2598 cents paid; outbox: order.confirmed (caused by pay-1); \
             processed_events holds pay-1",
        );
        trace.step("worker-1", "<done> Applied");
        assert_eq!(
            trace.to_string(),
            "       --  ord-1 is confirmed, 2598 cents paid; outbox: order.confirmed (caused\n\
             \x20            by pay-1); processed_events holds pay-1\n\
             \x20worker-1: <done> Applied\n"
        );
        for line in trace.to_string().lines() {
            assert!(line.chars().count() <= WIDTH, "{line:?}");
        }
    }
}

tokio::task_local! {
    /// Set while [`passing_traces`] records: the traces of scripted scenarios that passed.
    static PASSING: RefCell<Vec<Trace>>;
}

/// A scripted scenario that passed offers its trace. Only the maintainers' checks
/// keep it (for the chapters, through [`passing_traces`]); a student's tests do not compare it
/// with anything, since a correct handler other than the solution may interleave differently
/// (wait on another session, say) and must pass all the same.
pub fn passing_trace(trace: &Trace) {
    let _ = PASSING.try_with(|kept| kept.borrow_mut().push(trace.clone()));
}

/// Runs `scenario` and returns its result with the traces its passing scripts offered.
pub async fn passing_traces<F: Future>(scenario: F) -> (F::Output, Vec<Trace>) {
    PASSING
        .scope(RefCell::new(Vec::new()), async {
            let output = scenario.await;
            (output, PASSING.with(|kept| kept.take()))
        })
        .await
}
