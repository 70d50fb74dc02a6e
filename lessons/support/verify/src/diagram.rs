//! A recorded trace (a lesson's `.snap`) drawn as a mermaid sequence diagram, for the chapter
//! that tells its story. `tests/checks/book.rs` regenerates every diagram from its snapshot and fails
//! when the chapter's copy differs, so a diagram never shows anything the test did not observe.

/// The mermaid source for the trace in `snapshot` (insta's file: a header, then the trace).
pub fn from_snapshot(snapshot: &str) -> String {
    let body = snapshot.splitn(3, "---\n").nth(2).unwrap_or(snapshot);
    from_trace(body)
}

/// The mermaid source for `trace`, as `kit::Trace` prints it: one step per line (`session:
/// what`), a note after the script (`--  what`), and wrapped lines indented under their text.
pub fn from_trace(trace: &str) -> String {
    let steps = unwrap_lines(trace);
    let mut sessions: Vec<&str> = Vec::new();
    for (who, _) in &steps {
        if let Some(who) = who
            && !sessions.contains(who)
        {
            sessions.push(who);
        }
    }
    let mut out = String::from("sequenceDiagram\n");
    for session in &sessions {
        out.push_str(&format!("    participant {} as {session}\n", id(session)));
    }
    out.push_str("    participant DB as PostgreSQL\n");
    for (who, what) in &steps {
        let Some(who) = who else {
            out.push_str(&format!("    Note over DB: {}\n", text(what)));
            continue;
        };
        let me = id(who);
        if let Some(result) = what.strip_prefix("<done> ") {
            out.push_str(&format!("    DB-->>{me}: {}\n", text(result)));
        } else if let Some(event) = what.strip_prefix('<') {
            // <killed: …>, <cancelled: …>, <now waiting on …>
            let event = event.trim_end_matches('>');
            out.push_str(&format!("    Note over {me}: {}\n", text(event)));
        } else if let Some((call, waiting)) = what.split_once(" <waiting on ") {
            out.push_str(&format!("    {me}->>DB: {}\n", text(call)));
            let on = waiting.trim_end_matches('>');
            out.push_str(&format!("    Note over {me},DB: waits on {}\n", text(on)));
        } else {
            out.push_str(&format!("    {me}->>DB: {}\n", text(what)));
        }
    }
    out
}

/// The trace's steps, wrapped lines joined again: (the session, or none for a note; the text).
fn unwrap_lines(trace: &str) -> Vec<(Option<&str>, String)> {
    let mut steps: Vec<(Option<&str>, String)> = Vec::new();
    for line in trace.lines().filter(|l| !l.trim().is_empty()) {
        let (head, rest) = line.split_at(line.len().min(11));
        match (head.trim(), head.ends_with(": ")) {
            ("", _) => {
                if let Some((_, what)) = steps.last_mut() {
                    what.push(' ');
                    what.push_str(line.trim());
                }
            }
            ("--", _) => steps.push((None, rest.trim().to_string())),
            (who, true) => steps.push((Some(who.trim_end_matches(':')), rest.to_string())),
            _ => steps.push((None, line.trim().to_string())),
        }
    }
    steps
}

/// A participant's id: mermaid reads `-` in a name as part of an arrow.
fn id(session: &str) -> String {
    session.replace('-', "_")
}

/// Text mermaid shows as written: `;` would end the statement, and `#` starts an entity.
fn text(what: &str) -> String {
    what.replace('#', "#35;").replace(';', "#59;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_becomes_calls_waits_results_and_notes() {
        let trace = [
            "   holder: BEGIN; SELECT 1 FROM orders WHERE id = 'ord-1' FOR UPDATE",
            " worker-1: apply(pay-1) <waiting on holder>",
            "   holder: COMMIT",
            " worker-1: <done> Applied",
            "       --  ord-1 is confirmed; outbox: one",
            "             row",
        ]
        .join("\n");
        assert_eq!(
            from_trace(&trace),
            "sequenceDiagram\n    participant holder as holder\n    participant worker_1 as \
             worker-1\n    participant DB as PostgreSQL\n    holder->>DB: BEGIN#59; SELECT 1 \
             FROM orders WHERE id = 'ord-1' FOR UPDATE\n    worker_1->>DB: apply(pay-1)\n    \
             Note over worker_1,DB: waits on holder\n    holder->>DB: COMMIT\n    \
             DB-->>worker_1: Applied\n    Note over DB: ord-1 is confirmed#59; outbox: one \
             row\n"
        );
    }
}
