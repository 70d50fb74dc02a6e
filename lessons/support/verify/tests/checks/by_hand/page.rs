//! The page as a reader meets it: blocks to type into a session, each followed by what that
//! session prints.

/// What a block does once typed, as its first line says: `-- A`, `-- B, waits` (its prompt comes
/// back only when the other session ends its transaction) or `-- B, waits about a second` (its
/// prompt comes back by itself, once PostgreSQL's deadlock check has run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waits {
    No,
    ForTheOther,
    ASecond,
}

/// A ```sql block: typed, exactly as printed, into one psql session.
#[derive(Debug)]
pub struct Block {
    pub session: String,
    pub waits: Waits,
    /// Everything the reader types, the first line (a comment to psql) included.
    pub input: String,
    /// The line of the page the block starts on, for messages.
    pub line: usize,
    /// The ```console blocks between this block and the next: what the page says psql prints,
    /// first for this block (unless it waits), then for each block that was waiting and whose
    /// prompt came back, in the order they were typed.
    pub shown: Vec<Shown>,
}

/// A ```console block: lines a session prints.
#[derive(Debug)]
pub struct Shown {
    pub line: usize,
    pub lines: Vec<String>,
}

/// Every ```sql block of `page` and the ```console blocks that follow it. Other blocks (```sh, the
/// commands that start psql) are the reader's, not typed into a session.
pub fn blocks(page: &str) -> Result<Vec<Block>, String> {
    let mut found: Vec<Block> = Vec::new();
    let mut lines = page.lines().enumerate().map(|(i, line)| (i + 1, line));
    while let Some((number, line)) = lines.next() {
        let kind = match line.trim_end() {
            "```sql" => "sql",
            "```console" => "console",
            _ => continue,
        };
        let mut body = Vec::new();
        for (_, line) in lines.by_ref() {
            if line.trim_end() == "```" {
                break;
            }
            body.push(line.to_string());
        }
        if kind == "console" {
            let Some(last) = found.last_mut() else {
                return Err(format!(
                    "line {number}: a console block before any sql block: what printed it?"
                ));
            };
            last.shown.push(Shown {
                line: number,
                lines: body,
            });
            continue;
        }
        let header = body.first().map(String::as_str).unwrap_or("");
        let header = header.strip_prefix("-- ").ok_or_else(|| {
            format!("line {number}: a sql block starts with `-- <session>`, not {header:?}")
        })?;
        let (session, what) = header.split_once(", ").unwrap_or((header, ""));
        let waits = match what {
            "" => Waits::No,
            "waits" => Waits::ForTheOther,
            "waits about a second" => Waits::ASecond,
            other => {
                return Err(format!(
                    "line {number}: {other:?}: a block says nothing, `waits` or `waits about a \
                     second`"
                ));
            }
        };
        found.push(Block {
            session: session.to_string(),
            waits,
            input: body.join("\n") + "\n",
            line: number,
            shown: Vec::new(),
        });
    }
    Ok(found)
}

/// Two lines are the same if they differ only in trailing spaces (psql pads its columns) and in
/// the numbers PostgreSQL draws afresh each run: process ids and transaction ids, which a
/// deadlock's message names.
pub fn same_line(shown: &str, printed: &str) -> bool {
    stable(shown.trim_end()) == stable(printed.trim_end())
}

fn stable(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while !rest.is_empty() {
        let word = ["rocess ", "transaction "]
            .iter()
            .filter_map(|word| rest.find(word).map(|at| (at, word.len())))
            .min();
        let Some((at, len)) = word else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..at + len]);
        rest = &rest[at + len..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push('N');
        }
        rest = &rest[digits..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_owns_the_console_blocks_up_to_the_next_block() {
        let page = "```sh\npsql\n```\n```sql\n-- A\nBEGIN;\n```\nprose\n```console\nBEGIN\n```\n\
                    ```sql\n-- B, waits\nSELECT 1;\n```\n```sql\n-- A\nCOMMIT;\n```\n\
                    ```console\nCOMMIT\n```\n```console\n one\n```\n";
        let blocks = blocks(page).unwrap();
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0].shown[0].lines, ["BEGIN"]);
        assert_eq!(blocks[1].waits, Waits::ForTheOther);
        assert!(blocks[1].shown.is_empty());
        assert_eq!(blocks[2].shown.len(), 2);
        assert_eq!(blocks[2].input, "-- A\nCOMMIT;\n");
    }

    #[test]
    fn only_the_numbers_postgres_draws_afresh_may_differ() {
        assert!(same_line(
            "DETAIL:  Process 101 waits for ShareLock on transaction 741; blocked by process 99.",
            "DETAIL:  Process 4242 waits for ShareLock on transaction 9; blocked by process 4243."
        ));
        assert!(same_line(" id ", " id"));
        assert!(!same_line("INSERT 0 1", "INSERT 0 0"));
        assert!(!same_line("(0,1)", "(0,2)"));
    }
}
