//! A failing test's violation as data, for tools (`cargo workbook check --format json`): when
//! `WORKBOOK_VERDICTS` names a folder, the violation a test fails with is written there as
//! `TEST.json`, from the violation itself (its kind, the section its message cites, its trace
//! line by line, its statements where they were recorded), never read back out of the printed
//! message.

use std::cell::RefCell;

use serde::Serialize;

use crate::words::statements::Statement;
use crate::words::trace::{Trace, TraceStep};

/// The folder a failing test writes its violation into, one file per test.
pub(crate) const WRITE_TO: &str = "WORKBOOK_VERDICTS";

thread_local! {
    /// The section the message being worded cites ([`crate::see`]): the lesson and its title.
    static CITED: RefCell<Option<Citation>> = const { RefCell::new(None) };
}

/// A section of the book a message sends the student to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Citation {
    /// The lesson whose chapter it is ("02").
    pub lesson: String,
    pub section: String,
}

/// [`crate::see`] cites `section` of `lesson`'s chapter.
pub(crate) fn cite(lesson: &str, section: &str) {
    CITED.with(|cited| {
        *cited.borrow_mut() = Some(Citation {
            lesson: lesson.to_string(),
            section: section.to_string(),
        });
    });
}

/// Words a message with `word`, and the section it cited while it did (its last, if several).
pub(crate) fn worded(word: impl FnOnce() -> String) -> (String, Option<Citation>) {
    CITED.with(|cited| cited.borrow_mut().take());
    let message = word();
    (message, CITED.with(|cited| cited.borrow_mut().take()))
}

/// A violation as `WORKBOOK_VERDICTS` keeps it.
#[derive(Debug, Serialize)]
pub(crate) struct Reported<'a> {
    /// The violation's kind, as the wrong fixes' `expect:` lines name it (`ChargedTwice`).
    pub kind: String,
    /// The section of the book the message cites, if it cites one.
    pub cites: Option<Citation>,
    /// What happened and why it is wrong, without the trace.
    pub message: String,
    /// The scripted scenario's trace, line by line; `None` for a scenario without a script.
    pub trace: Option<&'a [TraceStep]>,
    /// Every statement of the scenario, where they were recorded.
    pub statements: Option<Vec<Statement>>,
}

impl<'a> Reported<'a> {
    pub(crate) fn new(
        kind: String,
        worded: (String, Option<Citation>),
        trace: Option<&'a Trace>,
    ) -> Self {
        let (message, cites) = worded;
        Reported {
            kind,
            cites,
            message,
            trace: trace.map(Trace::steps),
            statements: trace.and_then(Trace::statements).map(|s| s.all()),
        }
    }

    /// Writes it as the test `test`'s (`a::b` is written `a-b`), if `WORKBOOK_VERDICTS` names a
    /// folder: what a test does with the violation it returns. A file that cannot be written is
    /// said on stderr: the test's own verdict stands.
    pub(crate) fn write_as(&self, test: &str) {
        if let Some(folder) = std::env::var_os(WRITE_TO) {
            self.write_to(std::path::Path::new(&folder), &test.replace("::", "-"));
        }
    }

    fn write_to(&self, folder: &std::path::Path, test: &str) {
        let json = serde_json::to_string_pretty(self).unwrap_or_default();
        let written = std::fs::create_dir_all(folder)
            .and_then(|()| std::fs::write(folder.join(format!("{test}.json")), json));
        if let Err(error) = written {
            eprintln!(
                "workbook: could not write the verdict to {}: {error}",
                folder.display()
            );
        }
    }
}

/// The folder the variable `variable` names, if it names one, and the running test's name as
/// a file stem: the thread's name, which is what libtest names a test's thread (`a::b` is
/// written `a-b`).
pub(crate) fn this_tests_folder(variable: &str) -> Option<(std::path::PathBuf, String)> {
    let folder = std::path::PathBuf::from(std::env::var_os(variable)?);
    let test = std::thread::current()
        .name()
        .unwrap_or("test")
        .replace("::", "-");
    Some((folder, test))
}
