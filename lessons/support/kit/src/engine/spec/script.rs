//! A spec, as the script the interleaving plays: the same sessions, step names and statements
//! a scenario would write with [`Script`]'s builder, so the trace is the same too.

use super::{Action, Permutation, Spec, SpecError};
use crate::engine::script::Script;
use crate::engine::subject::Handler;

impl Spec {
    /// The script of this spec's sessions, for `handler`, its deliveries shown as `shown` words
    /// them. `event` makes the handler's event (or request) from a `deliver` step's JSON, as the
    /// lesson's by-hand feed reads a line; a line it refuses is refused with the step's line.
    /// SQL steps run to completion, as [`Script::sql`] runs them; the spec's `setup` is the
    /// caller's to run. A hook is refused: no lesson supplies one yet.
    pub fn script<E: Send + 'static, H: Handler<E>>(
        &self,
        handler: &H,
        shown: fn(&E) -> String,
        event: impl Fn(&str) -> Result<E, String>,
    ) -> Result<Script<E, H>, SpecError> {
        let mut script = Script::new(handler, shown);
        for session in &self.sessions {
            for step in &session.steps {
                let (name, line) = (step.name.as_str(), step.line);
                script = match &step.action {
                    Action::Sql(sql) => script.sql(&session.name, name, sql),
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

impl Permutation {
    /// The order, as the interleaving takes it: step names separated by spaces.
    pub fn order(&self) -> String {
        self.steps.join(" ")
    }
}
