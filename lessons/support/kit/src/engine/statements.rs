//! When a scripted scenario records its statements ([`crate::Statements`], the record itself,
//! lives with the words): inside [`recorded`], or when `cargo workbook trace` asks.

use crate::words::statements::Statements;

tokio::task_local! {
    /// Set while [`recorded`] runs a scenario.
    static RECORDED: ();
}

/// Runs `scenario` with every scripted interleaving in it recording its statements, which its
/// trace then carries ([`crate::Trace::statements`]): how the maintainers' checks record the
/// statements of the traces the book shows.
pub async fn recorded<F: std::future::Future>(scenario: F) -> F::Output {
    RECORDED.scope((), scenario).await
}

/// Whether a scripted interleaving starting now records its statements: inside [`recorded`],
/// or when `WORKBOOK_STATEMENTS` asks for them.
pub(crate) fn wanted() -> bool {
    RECORDED.try_with(|()| ()).is_ok() || std::env::var_os(WRITE_TO).is_some()
}

/// Where `WORKBOOK_STATEMENTS` asks every scripted scenario of this process to write its
/// statements (`cargo workbook trace` sets it): a folder, one file pair per scenario, named by
/// the test that played it.
pub(crate) const WRITE_TO: &str = "WORKBOOK_STATEMENTS";

/// Writes `statements` into the folder `WORKBOOK_STATEMENTS` names, as `TEST.json` and
/// `TEST.txt` (`TEST-2…` for a test's later scenarios). The test is the thread's name, which is
/// what libtest names a test's thread. A file that cannot be written is said on stderr: the
/// test itself is not at fault.
pub(crate) fn write_out(statements: &Statements) {
    let Some((folder, test)) = crate::words::reported::this_tests_folder(WRITE_TO) else {
        return;
    };
    let written = std::fs::create_dir_all(&folder).and_then(|()| {
        let mut n = 1;
        let stem = loop {
            let stem = match n {
                1 => test.clone(),
                n => format!("{test}-{n}"),
            };
            if !folder.join(format!("{stem}.json")).exists() {
                break stem;
            }
            n += 1;
        };
        std::fs::write(folder.join(format!("{stem}.json")), statements.to_json())?;
        std::fs::write(folder.join(format!("{stem}.txt")), statements.to_string())
    });
    if let Err(error) = written {
        eprintln!(
            "workbook: could not write the statements to {}: {error}",
            folder.display()
        );
    }
}
