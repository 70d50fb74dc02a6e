//! A real `psql`, fed a block at a time, as a reader types at its prompt.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// Printed by the `\echo` typed after each block: psql runs it only once every statement of the
/// block has returned, so when it shows, the prompt would be back.
const PROMPT_IS_BACK: &str = "<<try-by-hand: the prompt is back>>";

pub struct Psql {
    /// `A` or `B`, as the page names it.
    pub name: String,
    /// How the observer finds this session's backend in pg_stat_activity.
    pub application_name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    printed: Receiver<String>,
    /// The block typed last whose prompt has not come back yet, and what it printed so far.
    pub typing: Option<(usize, Vec<String>)>,
}

impl Psql {
    /// `psql <url>` in `workdir` (the `\i` lines name files relative to the workbook's folder).
    /// `-X` leaves out the reader's `~/.psqlrc`, which the page cannot know; stdout and stderr
    /// share one pipe, so errors come out where a terminal would show them.
    pub fn start(name: &str, url: &str, workdir: &Path) -> Result<Psql, String> {
        let application_name = format!("try-by-hand {name}");
        let (reader, writer) = std::io::pipe().map_err(|e| e.to_string())?;
        let mut child = Command::new("psql")
            .arg("-X")
            .arg(url)
            .current_dir(workdir)
            .env("PGAPPNAME", &application_name)
            // psql's own messages in English, as the page prints them.
            .env("LC_ALL", "C")
            .stdin(Stdio::piped())
            .stdout(writer.try_clone().map_err(|e| e.to_string())?)
            .stderr(writer)
            .spawn()
            .map_err(|e| format!("could not start psql: {e}"))?;
        let stdin = child.stdin.take();
        let (sender, printed) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(reader).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Psql {
            name: name.to_string(),
            application_name,
            child,
            stdin,
            printed,
            typing: None,
        })
    }

    /// Types `input` at the prompt (block `index` of the page).
    pub fn type_block(&mut self, index: usize, input: &str) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("psql's input is closed")?;
        writeln!(stdin, "{input}\\echo {PROMPT_IS_BACK}")
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("session {}: psql stopped reading: {e}", self.name))?;
        self.typing = Some((index, Vec::new()));
        Ok(())
    }

    /// What the block typed last printed, once its prompt is back.
    pub fn returned(&mut self) -> Result<Option<(usize, Vec<String>)>, String> {
        loop {
            let line = match self.printed.try_recv() {
                Ok(line) => line,
                Err(TryRecvError::Empty) => return Ok(None),
                Err(TryRecvError::Disconnected) => {
                    return Err(format!("session {}: psql exited", self.name));
                }
            };
            let Some((_, printed)) = self.typing.as_mut() else {
                return Err(format!(
                    "session {} printed {line:?} with nothing typed",
                    self.name
                ));
            };
            if line == PROMPT_IS_BACK {
                return Ok(self.typing.take());
            }
            printed.push(line);
        }
    }
}

impl Drop for Psql {
    /// End of input quits psql, as `\q` would; a psql that does not is killed.
    fn drop(&mut self) {
        drop(self.stdin.take());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
