//! A scripted session's statement that may wait on a lock and may fail, as a step of
//! PostgreSQL's isolation tester may: the way to play an anomaly at an isolation level and
//! record what the level did with it (made the second writer wait, aborted it with 40001,
//! broke a deadlock with 40P01, or let it through).
//!
//! A plain [`Interleaving::step`] must neither wait nor fail (it only sets the scene); this one
//! runs in a task on the session's client, watched by the same machinery as a delivery.

use super::{Backends, Interleaving, Session, StepState, Worker};
use crate::engine::tester::simple_query_to_ready;
use crate::error::KitError;
use crate::words::sqlstate::DbError;
use crate::words::statements::Answer;

/// The rows a statement returned, each column as PostgreSQL's text (NULL as `None`).
pub type Rows = Vec<Vec<Option<String>>>;

/// What a session step did: its rows, or the error the server raised (a client-side failure,
/// such as a lost connection, is a failure of the test, not a result).
pub type StepResult = Result<Rows, DbError>;

impl Interleaving {
    /// Starts `sql` in `session` and waits until it has finished or is seen waiting on a lock,
    /// recording either. A step that waits is finished later, with [`Interleaving::settle`]
    /// and [`Interleaving::finish`], as a delivery is.
    pub async fn start_step(
        &mut self,
        session: &Session,
        sql: &str,
    ) -> Result<Worker<Result<StepResult, KitError>>, KitError> {
        let pid = (self.pid_of(&session.name)).expect("a scripted session is known by its pid");
        let backends = Backends {
            pid,
            application_name: None,
        };
        if let Some(statements) = self.statements() {
            statements.started(&session.name, sql, Vec::new());
        }
        let client = session.client.clone();
        let (owned, name) = (sql.to_string(), session.name.clone());
        let mut task = tokio::spawn(async move {
            // Done once the server is ready again: after an error, once the transaction it
            // failed has been aborted, as the isolation tester reads a step's end.
            match simple_query_to_ready(&client, &owned).await {
                (messages, None) => Ok(Ok(rows_of(messages))),
                (_, Some(e)) => match DbError::of_postgres(&e) {
                    Some(error) => Ok(Err(error)),
                    None => Err(KitError::observer(format!("{name}: {owned}"))(e)),
                },
            }
        });
        let state = match (self.wait_until_waiting_or_finished(&session.name, &backends, &mut task))
            .await?
        {
            StepState::Finished(Err(e)) => return Err(e),
            state => state,
        };
        match &state {
            StepState::Waiting { on } => self.trace.waits(&session.name, sql, on),
            StepState::Finished(Ok(result)) => {
                self.step_answered(&session.name, result);
                self.trace.answered(&session.name, sql, shown(result));
            }
            StepState::Finished(Err(_)) => unreachable!("returned above"),
        }
        let task = matches!(state, StepState::Waiting { .. }).then_some(task);
        Ok(Worker {
            name: session.name.clone(),
            backends,
            state,
            task,
        })
    }

    /// Looks again at a session step that was waiting: it has finished, or still waits (the
    /// trace says so only when it now waits on other sessions than before).
    pub async fn settle_step(
        &mut self,
        step: &mut Worker<Result<StepResult, KitError>>,
    ) -> Result<(), KitError> {
        let Some(mut task) = step.task.take() else {
            return Ok(());
        };
        let state =
            (self.wait_until_waiting_or_finished(&step.name, &step.backends, &mut task)).await?;
        match &state {
            StepState::Waiting { on } => {
                if on.as_slice() != step.waiting_on() {
                    self.trace.waits(&step.name, "", on);
                }
                step.task = Some(task);
            }
            StepState::Finished(Ok(result)) => self.trace_done(&step.name, result),
            StepState::Finished(Err(_)) => {}
        }
        step.state = state;
        Ok(())
    }

    /// Waits for a session step to finish, and records its result.
    pub async fn finish_step(
        &mut self,
        step: Worker<Result<StepResult, KitError>>,
    ) -> Result<StepResult, KitError> {
        let name = step.name.clone();
        let result = match (step.state, step.task) {
            (StepState::Finished(result), _) => result?,
            (StepState::Waiting { .. }, Some(task)) => {
                match tokio::time::timeout(super::STEP_DEADLINE, task).await {
                    Ok(Ok(result)) => {
                        let result = result?;
                        self.trace_done(&name, &result);
                        result
                    }
                    Ok(Err(e)) => std::panic::resume_unwind(e.into_panic()),
                    Err(_) => {
                        return Err(KitError::Stuck {
                            session: name,
                            waited: super::STEP_DEADLINE,
                        });
                    }
                }
            }
            (StepState::Waiting { .. }, None) => unreachable!("a waiting step keeps its task"),
        };
        Ok(result)
    }

    /// A step that waited has finished: the trace says how, on a line of its own.
    fn trace_done(&mut self, session: &str, result: &StepResult) {
        self.step_answered(session, result);
        self.trace.done(session, shown(result));
    }
}

/// How the trace shows a step's result: its rows after an arrow (`→ 100`, rows separated by
/// `;`), or its error by SQLSTATE and the server's message; nothing for a statement without
/// rows.
pub fn shown(result: &StepResult) -> String {
    match result {
        Ok(rows) if rows.is_empty() => String::new(),
        Ok(rows) => {
            let rows: Vec<String> = (rows.iter())
                .map(|row| {
                    (row.iter())
                        .map(|value| value.as_deref().unwrap_or("NULL"))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .collect();
            format!("→ {}", rows.join("; "))
        }
        Err(e) => format!("<error {}: {}>", e.code, e.message),
    }
}

fn rows_of(messages: Vec<tokio_postgres::SimpleQueryMessage>) -> Rows {
    (messages.into_iter())
        .filter_map(|message| match message {
            tokio_postgres::SimpleQueryMessage::Row(row) => Some(
                (0..row.len())
                    .map(|i| row.get(i).map(str::to_string))
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

impl Interleaving {
    /// A session step's answer, in the statements being recorded: its rows, or its error.
    fn step_answered(&self, session: &str, result: &StepResult) {
        let Some(statements) = self.statements() else {
            return;
        };
        let answer = match result {
            Ok(_) => Answer::Done(vec![match shown(result).strip_prefix("→ ") {
                Some(rows) => rows.to_string(),
                None => "ok".into(),
            }]),
            Err(error) => Answer::Failed(error.code.clone()),
        };
        statements.answered(session, answer);
    }
}
