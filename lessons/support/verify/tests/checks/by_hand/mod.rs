//! The book's "Try it by hand" page (book/src/try-by-hand.md), typed into two real `psql`
//! sessions exactly as printed, meta-commands included, and what psql prints compared with
//! every ```console block the page shows (page.rs says how the page is read).
//!
//! Waiting is seen, never guessed by time: a block's prompt is "not back" while its backend is
//! blocked (`pg_blocking_pids`) by a session that is idle in its transaction, i.e. waiting for
//! the reader to type in the other terminal. The sessions run against a fresh database of the
//! tests' server, the same kind of server `cargo workbook db start` runs, so the page is played
//! wherever the suite runs and leaves nothing behind.

mod page;
mod psql;

use std::time::{Duration, Instant};

use kit::{Schema, TestDatabase};
use page::{Block, Waits, same_line};
use psql::Psql;
use verify::workspace_root;

/// Long enough for a deadlock check (`deadlock_timeout`, 1 s by default) on a busy machine.
const PROMPT_DEADLINE: Duration = Duration::from_secs(15);

#[tokio::test]
async fn the_try_by_hand_page_prints_what_it_shows_when_typed_into_psql() -> Result<(), String> {
    if Psql::missing() {
        return Ok(());
    }
    let page = std::fs::read_to_string(workspace_root().join("book/src/try-by-hand.md"))
        .map_err(|e| e.to_string())?;
    let blocks = page::blocks(&page).map_err(|e| format!("try-by-hand.md {e}"))?;
    assert!(blocks.len() > 10, "found only {} blocks", blocks.len());
    // The page makes its tables itself (`\i migrations/…`): the database starts empty.
    let db = TestDatabase::create(&Schema::from_dirs(Vec::<std::path::PathBuf>::new()))
        .await
        .map_err(|e| e.to_string())?;
    let observer = db.session().await.map_err(|e| e.to_string())?;
    let mut sessions: Vec<Psql> = Vec::new();

    for (index, block) in blocks.iter().enumerate() {
        let at = format!("try-by-hand.md line {}", block.line);
        if !sessions.iter().any(|s| s.name == block.session) {
            sessions.push(Psql::start(&block.session, &db.url(), &workspace_root())?);
        }
        let session = sessions
            .iter_mut()
            .find(|s| s.name == block.session)
            .unwrap();
        if let Some((earlier, _)) = session.typing {
            return Err(format!(
                "{at}: typed into {} while its prompt has not come back from line {}",
                block.session, blocks[earlier].line
            ));
        }
        session.type_block(index, &block.input)?;
        let printed = settle(&observer, &mut sessions, &blocks, index).await?;
        compare(block, &at, &printed)?;
    }
    if let Some(session) = sessions.iter().find(|s| s.typing.is_some()) {
        let (index, _) = session.typing.as_ref().unwrap();
        return Err(format!(
            "try-by-hand.md line {}: its prompt never came back",
            blocks[*index].line
        ));
    }
    Ok(())
}

/// Watches every session until each prompt is back or waits on the reader's other terminal,
/// and returns what the returned blocks printed: this block's first, then the others in the
/// order they were typed.
async fn settle(
    observer: &tokio_postgres::Client,
    sessions: &mut [Psql],
    blocks: &[Block],
    typed: usize,
) -> Result<Vec<(usize, Vec<String>)>, String> {
    let block = &blocks[typed];
    let at = format!("try-by-hand.md line {}", block.line);
    let mut returned = Vec::new();
    let mut seen_waiting = false;
    let deadline = Instant::now() + PROMPT_DEADLINE;
    loop {
        for session in sessions.iter_mut() {
            if let Some(done) = session.returned()? {
                returned.push(done);
            }
        }
        let mut settled = true;
        for session in sessions.iter().filter(|s| s.typing.is_some()) {
            let (index, _) = session.typing.as_ref().unwrap();
            let waits = waits_for_the_reader(observer, &session.application_name).await?;
            if *index != typed {
                settled &= waits.is_some_and(|on_idle| on_idle);
                continue;
            }
            match (block.waits, waits) {
                (Waits::No, Some(_)) => {
                    return Err(format!(
                        "{at}: session {} waits on a lock, and the page does not say so",
                        block.session
                    ));
                }
                (Waits::ForTheOther, Some(true)) => seen_waiting = true,
                (Waits::ASecond, Some(_)) => {
                    seen_waiting = true;
                    settled = false;
                }
                _ => settled = false,
            }
        }
        if settled {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!(
                "{at}: after {PROMPT_DEADLINE:?}, a prompt is neither back nor waiting on the \
                 other session"
            ));
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let this_returned = returned.iter().any(|(index, _)| *index == typed);
    match block.waits {
        Waits::ForTheOther if this_returned => Err(format!(
            "{at}: the page says session {} waits, and its prompt came back",
            block.session
        ))?,
        Waits::ASecond if !seen_waiting => Err(format!(
            "{at}: the page says session {} waits, and it never did",
            block.session
        ))?,
        _ => {}
    }
    returned.sort_by_key(|(index, _)| (*index != typed, *index));
    Ok(returned)
}

/// `None`: not waiting on a lock. `Some(true)`: waiting on sessions that are all idle in their
/// transactions, which only the reader's next block can move.
async fn waits_for_the_reader(
    observer: &tokio_postgres::Client,
    application_name: &str,
) -> Result<Option<bool>, String> {
    let row = observer
        .query_opt(
            "SELECT bool_and(blocker.state LIKE 'idle in transaction%')
               FROM pg_stat_activity AS waiter
               JOIN pg_stat_activity AS blocker
                 ON blocker.pid = ANY (pg_blocking_pids(waiter.pid))
              WHERE waiter.application_name = $1
              GROUP BY waiter.pid",
            &[&application_name],
        )
        .await
        .map_err(|e| kit::describe_postgres(&e))?;
    Ok(row.map(|row| row.get::<_, bool>(0)))
}

/// What the blocks printed, against the ```console blocks the page shows after `block`.
fn compare(block: &Block, at: &str, printed: &[(usize, Vec<String>)]) -> Result<(), String> {
    let printed: Vec<&Vec<String>> = printed
        .iter()
        .map(|(_, lines)| lines)
        .filter(|lines| !lines.is_empty())
        .collect();
    let shown_count = block.shown.len();
    for (i, lines) in printed.iter().enumerate() {
        let Some(shown) = block.shown.get(i) else {
            return Err(format!(
                "{at}: psql printed this, and the page shows no console block for it:\n{}",
                as_block(lines)
            ));
        };
        let same = shown.lines.len() == lines.len()
            && shown
                .lines
                .iter()
                .zip(lines.iter())
                .all(|(s, p)| same_line(s, p));
        if !same {
            return Err(format!(
                "try-by-hand.md line {}: the page shows\n{}psql printed\n{}",
                shown.line,
                as_block(&shown.lines),
                as_block(lines)
            ));
        }
    }
    if shown_count > printed.len() {
        return Err(format!(
            "try-by-hand.md line {}: the page shows this, and psql printed nothing for it:\n{}",
            block.shown[printed.len()].line,
            as_block(&block.shown[printed.len()].lines)
        ));
    }
    Ok(())
}

fn as_block(lines: &[String]) -> String {
    format!("```console\n{}\n```\n", lines.join("\n"))
}

impl Psql {
    /// Where no `psql` is installed (a machine that runs PostgreSQL only in Docker), the page
    /// cannot be played: said, and passed, except in CI, which must play it.
    fn missing() -> bool {
        let found = std::process::Command::new("psql")
            .arg("--version")
            .output()
            .is_ok_and(|out| out.status.success());
        if !found && std::env::var_os("CI").is_none() {
            eprintln!("try-by-hand: no psql on PATH, so the page was not played");
            return true;
        }
        false
    }
}
