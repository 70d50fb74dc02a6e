//! A spec, as the script the interleaving plays: the same sessions, step names and statements
//! a scenario would write with [`Script`]'s builder, so the trace is the same too.

use super::{Action, Permutation, Spec, SpecError};
use crate::engine::script::{NoDelivery, Script};
use crate::engine::subject::Handler;
use crate::error::KitError;
use crate::servers::database::TestDatabase;

impl Spec {
    /// The script of this spec's sessions, for `handler`, its deliveries shown as `shown` words
    /// them. `event` makes the handler's event (or request) from a `deliver` step's JSON, as the
    /// lesson's by-hand feed reads a line; a line it refuses is refused with the step's line.
    /// SQL steps run to completion, as [`Script::sql`] runs them; a session's setup opens it,
    /// on its own connection, before the first step; the spec's `setup` is the caller's to run.
    /// A hook is refused: no lesson supplies one yet.
    pub fn script<E: Send + 'static, H: Handler<E>>(
        &self,
        handler: &H,
        shown: fn(&E) -> String,
        event: impl Fn(&str) -> Result<E, String>,
    ) -> Result<Script<E, H>, SpecError> {
        let mut script = self.with_session_blocks(Script::new(handler, shown));
        for session in &self.sessions {
            for step in &session.steps {
                let (name, line) = (step.name.as_str(), step.line);
                script = match &step.action {
                    Action::Sql(sql) => script.sql(&session.name, name, &one_line(sql)),
                    Action::Deliver(json) => {
                        let event = event(json).map_err(|why| SpecError {
                            line,
                            message: format!(
                                "step `{name}` delivers what the lesson refuses: {why}"
                            ),
                        })?;
                        script.deliver(&session.name, name, event)
                    }
                    Action::Kill(worker) => script.kill(name, worker),
                    Action::Cancel(worker) => script.cancel(name, worker),
                    Action::Abandon(worker) => script.abandon(name, worker),
                    Action::Cut(worker, cut) => script.cut(name, worker, *cut),
                    Action::Resume(worker) => script.resume(name, worker),
                    Action::Hook { name: hook, .. } => {
                        return Err(SpecError {
                            line,
                            message: format!(
                                "step `{name}` runs the hook `{hook}`, which this lesson does \
                                 not supply"
                            ),
                        });
                    }
                };
            }
        }
        Ok(script)
    }
}

impl Spec {
    /// The script of a spec of sessions only, played as PostgreSQL's isolation tester plays its
    /// specs: every step is SQL, and may wait on a lock (the next step starts once it is seen
    /// waiting) or fail (its error is its result, in [`crate::Ran::step`]), as
    /// [`Script::step`] runs them. A delivery, a fault or a hook is refused with its line: there
    /// is no handler to deliver to.
    pub fn sessions_script(&self) -> Result<Script<(), NoDelivery>, SpecError> {
        let mut script = self.with_session_blocks(Script::sessions());
        for session in &self.sessions {
            for step in &session.steps {
                let Action::Sql(sql) = &step.action else {
                    return Err(SpecError {
                        line: step.line,
                        message: format!(
                            "step `{}` is not SQL: a spec of sessions only has no handler to \
                             deliver to, and no delivery to end",
                            step.name
                        ),
                    });
                };
                script = script.step(&session.name, &step.name, &one_line(sql));
            }
        }
        Ok(script)
    }
}

impl Spec {
    /// `script` with each session's setup and teardown, to run on that session's own
    /// connection (the parser keeps them off a delivering session, whose connection is its
    /// handler's).
    fn with_session_blocks<E: Send + 'static, H: Handler<E>>(
        &self,
        mut script: Script<E, H>,
    ) -> Script<E, H> {
        for session in &self.sessions {
            if let Some(sql) = &session.setup {
                script = script.setup(&session.name, &one_line(sql));
            }
            if let Some(sql) = &session.teardown {
                script = script.teardown(&session.name, &one_line(sql));
            }
        }
        script
    }

    /// Runs the spec's `setup` blocks on `db`, in order, on a session of their own, before any
    /// session of the spec opens.
    pub async fn set_up(&self, db: &TestDatabase) -> Result<(), KitError> {
        let session = db.session().await?;
        for sql in &self.setup {
            (session.batch_execute(sql).await)
                .map_err(KitError::observer(format!("the spec's setup: {sql}")))?;
        }
        Ok(())
    }
}

impl Permutation {
    /// The order, as the interleaving takes it: step names separated by spaces.
    pub fn order(&self) -> String {
        self.steps.join(" ")
    }

    /// It expects the shipped exercise to fail (`expect exercise KIND`): a race or fault the
    /// exercise loses, which `cargo repeat` counts.
    pub fn exercise_fails(&self) -> bool {
        (self.expect.iter())
            .any(|e| e.side == super::Side::Exercise && e.verdict != super::Verdict::Holds)
    }
}

/// A block written over several lines, as one line, the way the trace shows a statement (and
/// the way the lessons' own scripts write them): each line trimmed, lines that are only a `--`
/// comment left out. A block with a comment after code on a line is kept as written, since
/// joining its lines would comment out what follows.
fn one_line(sql: &str) -> String {
    let lines: Vec<&str> = (sql.lines().map(str::trim))
        .filter(|line| !line.is_empty() && !line.starts_with("--"))
        .collect();
    if lines.iter().any(|line| line.contains("--")) {
        return sql.to_string();
    }
    lines.join(" ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_block_over_several_lines_is_one_statement_line() {
        let block = "BEGIN;\n    -- the customer first\n    SELECT 1 FROM customers FOR UPDATE;\n";
        assert_eq!(
            super::one_line(block),
            "BEGIN; SELECT 1 FROM customers FOR UPDATE;"
        );
        let commented = "SELECT 1 -- why\nFROM t";
        assert_eq!(super::one_line(commented), commented);
    }
}
