use std::fmt;

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
