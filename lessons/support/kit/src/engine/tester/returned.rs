//! What a step sent back, read as libpq reads it (to the server's "ready for query"), and
//! printed as the isolation tester prints it.

use tokio_postgres::{Client, SimpleQueryMessage};

use crate::engine::interleaving::Rows;
use crate::error::KitError;
use crate::words::statements::Answer;

/// What libpq says of a connection the server closed (its message, which the tester prints
/// whole, and a line of its own).
const CONNECTION_LOST: &str = "server closed the connection unexpectedly\n\tThis probably means \
     the server terminated abnormally\n\tbefore or while processing the request.\n";

/// What a step sent back, one result at a time, as libpq hands them over.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Returned {
    /// A statement that returns rows (a SELECT, a RETURNING), with its columns' names.
    Rows {
        columns: Vec<String>,
        rows: Rows,
        tag: String,
    },
    /// A statement that returns no rows (an INSERT, a BEGIN): nothing is printed of it.
    Command { tag: String },
    /// The server closed the connection (after a `FATAL`, or with no word): libpq's own
    /// error, printed as libpq words it.
    Lost,
    /// The statement failed: `ERROR:  message`.
    Error {
        severity: String,
        message: String,
        sqlstate: String,
    },
}

impl Returned {
    /// A step's results as the stepper records an answer: its command tags, or its error's
    /// SQLSTATE.
    pub(super) fn answer(results: &[Returned]) -> Answer {
        let mut tags = Vec::new();
        for result in results {
            match result {
                Returned::Rows { tag, .. } | Returned::Command { tag } => tags.push(tag.clone()),
                Returned::Error { sqlstate, .. } => return Answer::Failed(sqlstate.clone()),
                Returned::Lost => return Answer::Failed("08006".into()),
            }
        }
        Answer::Done(tags)
    }

    /// The result as the tester prints it: rows as `PQprint` lays them out, an error as
    /// `SEVERITY:  message`, a lost connection as libpq words it, a command as nothing.
    pub(super) fn printed(&self) -> String {
        match self {
            Returned::Rows { columns, rows, .. } => pq_print(columns, rows),
            Returned::Error {
                severity, message, ..
            } => format!("{severity}:  {message}\n"),
            Returned::Command { .. } => String::new(),
            Returned::Lost => format!("{CONNECTION_LOST}\n"),
        }
    }
}

/// Runs `sql` as one simple query, as `PQsendQuery` does, and keeps each result: a set of rows
/// (with its columns, even when there are none), a command, or the error that ended the batch.
pub(super) async fn run(client: &Client, sql: &str) -> Result<Vec<Returned>, KitError> {
    let (messages, error) = simple_query_to_ready(client, sql).await;
    let lost = error.as_ref().is_some_and(|e| e.is_closed())
        || client.is_closed() && error.as_ref().is_some_and(|e| e.as_db_error().is_some());
    let mut results = Vec::new();
    // The columns and rows of the set being read, until its command completes.
    let mut open: Option<(Vec<String>, Rows)> = None;
    for message in messages {
        match message {
            SimpleQueryMessage::RowDescription(columns) => {
                let names = columns.iter().map(|c| c.name().to_string()).collect();
                open = Some((names, Vec::new()));
            }
            SimpleQueryMessage::Row(row) => {
                if let Some((_, rows)) = &mut open {
                    rows.push(
                        (0..row.len())
                            .map(|i| row.get(i).map(str::to_string))
                            .collect(),
                    );
                }
            }
            // The simple query protocol hands over a row count, not the command's tag: the
            // stepper says "ok", as it does for a scripted session's statement.
            SimpleQueryMessage::CommandComplete(count) => {
                let tag = match &open {
                    Some(_) if count == 1 => "1 row".to_string(),
                    Some(_) => format!("{count} rows"),
                    None => "ok".to_string(),
                };
                match open.take() {
                    Some((columns, rows)) => results.push(Returned::Rows { columns, rows, tag }),
                    None => results.push(Returned::Command { tag }),
                }
            }
            _ => {}
        }
    }
    // A server's error ends a batch and is its last result; anything else (a lost
    // connection) is the tester's failure.
    match error.map(|e| (e.as_db_error().cloned(), e)) {
        None => {}
        Some((Some(db), _)) => results.push(Returned::Error {
            severity: db.severity().to_string(),
            message: db.message().to_string(),
            sqlstate: db.code().code().to_string(),
        }),
        Some((None, _)) if lost => {}
        Some((None, e)) => return Err(KitError::observer("running a step")(e)),
    }
    if lost {
        results.push(Returned::Lost);
    }
    Ok(results)
}

/// Runs `sql` as one simple query and reads its whole answer, up to the server's "ready for
/// query": the messages, and the error that ended it, if one did. The answer goes on after an
/// error: the server sends the error first, then aborts the transaction, and only then says it
/// is ready. A step is done once the server is ready, as libpq's `PQgetResult` has it; taking
/// the error for the end would let the next step run while the failed transaction still holds
/// its locks and its serializable snapshot.
pub(crate) async fn simple_query_to_ready(
    client: &Client,
    sql: &str,
) -> (Vec<SimpleQueryMessage>, Option<tokio_postgres::Error>) {
    use futures_util::StreamExt;
    use std::pin::pin;
    let stream = match client.simple_query_raw(sql).await {
        Ok(stream) => stream,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut stream = pin!(stream);
    let (mut messages, mut error) = (Vec::new(), None);
    while let Some(message) = stream.next().await {
        match message {
            Ok(message) => messages.push(message),
            Err(e) if e.as_db_error().is_some() && error.is_none() => error = Some(e),
            // The connection is gone: nothing more will come.
            Err(e) => return (messages, Some(error.unwrap_or(e))),
        }
    }
    (messages, error)
}

/// A set of rows as libpq's `PQprint` prints it with the isolation tester's options (aligned,
/// a header, `|` between columns): each column as wide as its widest value or name, in bytes;
/// a column is a number, and right-aligned, unless one of its values holds anything but digits,
/// `.`, `E`, `e`, `-` and spaces, starts with an `E`, or ends in anything but a digit. NULL and
/// empty values are left blank and say nothing of the column.
fn pq_print(columns: &[String], rows: &[Vec<Option<String>>]) -> String {
    if columns.is_empty() {
        return String::new();
    }
    let mut width: Vec<usize> = columns.iter().map(String::len).collect();
    let mut not_a_number = vec![false; columns.len()];
    for row in rows {
        for (j, value) in row.iter().enumerate() {
            let Some(value) = value.as_deref().filter(|v| !v.is_empty()) else {
                continue;
            };
            if !not_a_number[j] {
                let numeric_chars = value
                    .chars()
                    .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'E' | 'e' | ' ' | '-'));
                let last = value.chars().last().unwrap_or('0');
                if !numeric_chars || value.starts_with(['E', 'e']) || !last.is_ascii_digit() {
                    not_a_number[j] = true;
                }
            }
            width[j] = width[j].max(value.len());
        }
    }
    let cell = |j: usize, text: &str| {
        let pad = " ".repeat(width[j].saturating_sub(text.len()));
        match not_a_number[j] {
            true => format!("{text}{pad}"),
            false => format!("{pad}{text}"),
        }
    };
    let line = |cells: Vec<String>| cells.join("|") + "\n";
    let mut out = line((0..columns.len()).map(|j| cell(j, &columns[j])).collect());
    out += &line(width.iter().map(|w| "-".repeat(*w)).collect()).replace('|', "+");
    for row in rows {
        out += &line(
            (row.iter().enumerate())
                .map(|(j, v)| cell(j, v.as_deref().unwrap_or("")))
                .collect(),
        );
    }
    let plural = if rows.len() == 1 { "" } else { "s" };
    out + &format!("({} row{plural})\n\n", rows.len())
}
