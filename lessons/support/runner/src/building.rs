//! What a check says while cargo builds. The first check compiles a few hundred crates, which
//! takes a minute or two; with the test output captured, it would look like a hang.

use std::io::{IsTerminal, Write};

/// After this many crates, a build is the big first one, and is announced as such.
const A_FIRST_BUILD: usize = 25;

/// Reads cargo's stderr, a line at a time, and shows the build's progress: on a terminal, one
/// line rewritten in place; elsewhere (a CI log), a line now and then.
pub struct Building {
    compiled: usize,
    terminal: bool,
    showing: bool,
}

impl Building {
    pub fn new() -> Building {
        Building {
            compiled: 0,
            terminal: std::io::stderr().is_terminal(),
            showing: false,
        }
    }

    /// One line of what cargo printed.
    pub fn line(&mut self, line: &str) {
        let line = line.trim();
        let Some(unit) = line.strip_prefix("Compiling ") else {
            if line.starts_with("Running ") || line.starts_with("Finished ") {
                self.clear();
            }
            return;
        };
        self.compiled += 1;
        let mut err = std::io::stderr().lock();
        if self.compiled == A_FIRST_BUILD {
            self.clear_on(&mut err);
            let _ = writeln!(
                err,
                "building the workbook's dependencies: the first time only, about a minute \
                 on two cores; later checks take seconds"
            );
        }
        if self.compiled < A_FIRST_BUILD {
            return;
        }
        if self.terminal {
            let name: String = unit.chars().take(50).collect();
            let _ = write!(
                err,
                "\r\x1b[K  {} crates compiled, now {name}",
                self.compiled
            );
            self.showing = true;
        } else if self.compiled.is_multiple_of(50) {
            let _ = writeln!(err, "  {} crates compiled …", self.compiled);
        }
        let _ = err.flush();
    }

    /// Removes the progress line, if one is shown.
    pub fn clear(&mut self) {
        let mut err = std::io::stderr().lock();
        self.clear_on(&mut err);
    }

    fn clear_on(&mut self, err: &mut impl Write) {
        if self.showing {
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
            self.showing = false;
        }
    }
}

/// The reader of cargo's stderr drops it when cargo is done, whatever happened: no progress
/// line is left under the verdict.
impl Drop for Building {
    fn drop(&mut self) {
        self.clear();
    }
}
