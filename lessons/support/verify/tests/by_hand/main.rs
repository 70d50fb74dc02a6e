//! The book's "Try it by hand" page (book/src/try-by-hand.md), played as written. Each `sql`
//! block's first line names its psql session and what the reader should see:
//!
//! ```text
//! -- A                                  runs, and returns without waiting or failing
//! -- A; returns pending                 … and its last row's first column is `pending`
//! -- B, waits; then fails with 23505    is seen waiting on a lock, and later fails so
//! -- B, waits; then inserts 0           … later reports 0 rows inserted
//! ```
//!
//! A waiting block is awaited when its session is next used (its psql prompt had to come back
//! first) or at the end. Waiting is seen through `pg_blocking_pids`, never guessed by time.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kit::{Schema, TestDatabase};
use tokio::task::JoinHandle;
use tokio_postgres::{Client, SimpleQueryMessage};
use verify::workspace_root;

/// What the page says a block does.
#[derive(Debug, Default)]
struct Expect {
    waits: bool,
    fails_with: Option<String>,
    returns: Option<String>,
    inserts: Option<u64>,
}

struct Block {
    session: String,
    expect: Expect,
    sql: String,
    line: usize,
}

type Outcome = Result<Vec<SimpleQueryMessage>, tokio_postgres::Error>;

fn blocks(page: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut lines = page.lines().enumerate();
    while let Some((_, line)) = lines.next() {
        if line.trim() != "```sql" {
            continue;
        }
        let (number, header) = lines.next().expect("a block has a first line");
        let header = header
            .strip_prefix("-- ")
            .unwrap_or_else(|| panic!("line {}: a block starts with `-- <session>`", number + 1));
        let mut sql = String::new();
        for (_, line) in lines.by_ref() {
            if line.trim() == "```" {
                break;
            }
            sql.push_str(line);
            sql.push('\n');
        }
        let (session, what) = header.split_once([',', ';']).unwrap_or((header, ""));
        let mut expect = Expect {
            waits: what.contains("waits"),
            ..Expect::default()
        };
        for part in what.split([';', ',']).map(str::trim) {
            let part = part.strip_prefix("then ").unwrap_or(part);
            if let Some(code) = part.strip_prefix("fails with ") {
                expect.fails_with = Some(code.to_string());
            } else if let Some(value) = part.strip_prefix("returns ") {
                expect.returns = Some(value.to_string());
            } else if let Some(rows) = part.strip_prefix("inserts ") {
                expect.inserts = Some(rows.parse().expect("inserts N"));
            } else if !matches!(part, "" | "waits") {
                panic!("line {}: what does {part:?} expect?", number + 1);
            }
        }
        found.push(Block {
            session: session.trim().to_string(),
            expect,
            sql,
            line: number + 1,
        });
    }
    found
}

/// What the reader should have seen, checked against what the block returned.
fn check(block: &Block, outcome: Outcome) -> Result<(), String> {
    let at = format!(
        "try-by-hand.md line {} (session {})",
        block.line, block.session
    );
    let messages = match (outcome, &block.expect.fails_with) {
        (Err(error), Some(code)) => {
            let got = error.code().map(|c| c.code().to_string());
            return match got.as_deref() == Some(code.as_str()) {
                true => Ok(()),
                false => Err(format!(
                    "{at}: expected SQLSTATE {code}, got {}",
                    kit::describe_postgres(&error)
                )),
            };
        }
        (Err(error), None) => {
            return Err(format!("{at}: failed: {}", kit::describe_postgres(&error)));
        }
        (Ok(_), Some(code)) => return Err(format!("{at}: expected SQLSTATE {code}, it succeeded")),
        (Ok(messages), None) => messages,
    };
    if let Some(value) = &block.expect.returns {
        let last = messages.iter().rev().find_map(|m| match m {
            SimpleQueryMessage::Row(row) => Some(row.get(0).unwrap_or("NULL").to_string()),
            _ => None,
        });
        if last.as_deref() != Some(value.as_str()) {
            return Err(format!(
                "{at}: expected it to return {value}, it returned {last:?}"
            ));
        }
    }
    if let Some(rows) = block.expect.inserts {
        let last = messages.iter().rev().find_map(|m| match m {
            SimpleQueryMessage::CommandComplete(n) => Some(*n),
            _ => None,
        });
        if last != Some(rows) {
            return Err(format!("{at}: expected INSERT 0 {rows}, got {last:?} rows"));
        }
    }
    Ok(())
}

#[tokio::test]
async fn the_try_by_hand_page_does_what_it_says() -> Result<(), String> {
    let page = std::fs::read_to_string(workspace_root().join("book/src/try-by-hand.md"))
        .map_err(|e| e.to_string())?;
    let blocks = blocks(&page);
    assert!(blocks.len() > 10, "found only {} blocks", blocks.len());
    let schema = Schema::from_dirs([workspace_root().join("migrations/order_saga")]);
    let db = TestDatabase::create(&schema)
        .await
        .map_err(|e| e.to_string())?;
    let observer = db.session().await.map_err(|e| e.to_string())?;
    let mut sessions: Vec<(String, Arc<Client>, i32)> = Vec::new();
    let mut waiting: Vec<(usize, JoinHandle<Outcome>)> = Vec::new();

    for (index, block) in blocks.iter().enumerate() {
        if !sessions.iter().any(|(name, ..)| *name == block.session) {
            let client = db.session().await.map_err(|e| e.to_string())?;
            let pid: i32 = (client.query_one("SELECT pg_backend_pid()", &[]).await)
                .map_err(|e| e.to_string())?
                .get(0);
            sessions.push((block.session.clone(), Arc::new(client), pid));
        }
        let (_, client, pid) = sessions.iter().find(|(n, ..)| *n == block.session).unwrap();
        // The psql prompt of a session whose statement waits comes back only when it is done.
        if let Some(at) = waiting
            .iter()
            .position(|(i, _)| blocks[*i].session == block.session)
        {
            let (earlier, task) = waiting.remove(at);
            check(&blocks[earlier], finish(task).await?)?;
        }
        let (client, sql) = (Arc::clone(client), block.sql.clone());
        let mut task = tokio::spawn(async move { client.simple_query(&sql).await });
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if task.is_finished() {
                if block.expect.waits {
                    return Err(format!(
                        "try-by-hand.md line {}: expected session {} to wait, it returned",
                        block.line, block.session
                    ));
                }
                check(block, (&mut task).await.map_err(|e| e.to_string())?)?;
                break;
            }
            let blocked: Vec<i32> = (observer.query_one("SELECT pg_blocking_pids($1)", &[pid]))
                .await
                .map_err(|e| e.to_string())?
                .get(0);
            if !blocked.is_empty() {
                if !block.expect.waits {
                    return Err(format!(
                        "try-by-hand.md line {}: session {} waits, and the page does not say so",
                        block.line, block.session
                    ));
                }
                waiting.push((index, task));
                break;
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "try-by-hand.md line {}: neither returned nor waited",
                    block.line
                ));
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    for (index, task) in waiting {
        check(&blocks[index], finish(task).await?)?;
    }
    Ok(())
}

async fn finish(task: JoinHandle<Outcome>) -> Result<Outcome, String> {
    match tokio::time::timeout(Duration::from_secs(10), task).await {
        Ok(joined) => joined.map_err(|e| e.to_string()),
        Err(_) => Err("a waiting block never returned".to_string()),
    }
}
