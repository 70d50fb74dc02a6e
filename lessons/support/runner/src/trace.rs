//! `cargo workbook trace NN TEST`: one test of the student's exercise, run with the kit
//! recording every statement its scripted scenario's sessions sent (`WORKBOOK_STATEMENTS`), and
//! those statements shown in order: what the student's own handler did in the race, statement
//! by statement, which waited on whom, and what each returned.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use console::style;

use crate::catalog::{self, Lesson};
use crate::tests_run::{self, Verdict};

pub fn trace(root: &Path, name: &str, test: &str) -> Result<ExitCode, String> {
    let lesson = catalog::find(name)?;
    let folder = root.join("target/workbook/statements").join(lesson.folder);
    // Only this run's files: an old one would pass for this test's.
    if folder.exists() {
        std::fs::remove_dir_all(&folder)
            .map_err(|e| format!("could not empty {}: {e}", folder.display()))?;
    }
    let package = lesson.exercise_package();
    eprintln!("running cargo test -p {package} --test lesson -- --exact {test} …");
    let verdict = tests_run::test_package(
        root,
        &package,
        &["--test", "lesson", "--", "--exact", test],
        &[("WORKBOOK_STATEMENTS", &folder.to_string_lossy())],
    )?;
    let recorded = recorded_in(&folder);
    if recorded.is_empty() {
        return Err(nothing_recorded(root, lesson, test, &verdict));
    }
    match &verdict {
        Verdict::Solved => println!(
            "{} {test} passes against your exercise.",
            style("✓").green()
        ),
        Verdict::Failing(failures) => {
            println!("{} {test} fails against your exercise:", style("✗").red());
            for failure in failures {
                println!("{}", failure.message.trim_end());
            }
        }
        Verdict::DoesNotCompile(errors) => return Err(format!("it does not compile:\n{errors}")),
    }
    for (n, text) in recorded.iter().enumerate() {
        let heading = match recorded.len() {
            1 => "Every statement, in the order the sessions sent them:".to_string(),
            _ => format!(
                "Scenario {} of {}, every statement in order:",
                n + 1,
                recorded.len()
            ),
        };
        println!("\n{}\n{}", style(heading).bold(), text.1);
        match stepper_page(&text.0, test, YOUR_EXERCISE) {
            Ok(page) => println!(
                "Step through it in a browser: file://{} (as JSON: {})",
                page.display(),
                text.0.display()
            ),
            Err(_) => println!("(as JSON: {})", text.0.display()),
        }
    }
    Ok(match verdict {
        Verdict::Solved => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}

/// Each scenario the run recorded: its JSON file and its text, in the order played.
fn recorded_in(folder: &Path) -> Vec<(PathBuf, String)> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut texts: Vec<PathBuf> = (entries.flatten().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .collect();
    // `TEST.txt`, then `TEST-2.txt`, `TEST-3.txt`…: by length first, so `-10` follows `-9`.
    texts.sort_by_key(|path| (path.as_os_str().len(), path.clone()));
    (texts.into_iter())
        .filter_map(|text| {
            let shown = std::fs::read_to_string(&text).ok()?;
            Some((text.with_extension("json"), shown))
        })
        .collect()
}

/// What a trace's page shows, said above its stepper.
const YOUR_EXERCISE: &str = "Your exercise, every statement in the order the sessions sent them.";

/// The book's stepper, on a page of its own beside `json`: the same view the chapters show,
/// for the student's own handler (or a spec `play` played), with nothing fetched from the
/// network; titled `title`, with `about` said above it.
pub(crate) fn stepper_page(json: &Path, title: &str, about: &str) -> std::io::Result<PathBuf> {
    const SCRIPT: &str = include_str!("../../../../book/stepper.js");
    const STYLE: &str = include_str!("../../../../book/stepper.css");
    let statements = std::fs::read_to_string(json)?;
    let page = json.with_extension("html");
    let escaped =
        |text: &str| (text.replace('&', "&amp;").replace('<', "&lt;")).replace('"', "&quot;");
    let mark = first_trouble(&statements);
    let said = match &mark {
        Some(mark) => format!(
            " ◆ marks the first error the server answered (not counting the script's own \
             kills and cancels), or if there was none, the last wait: {}.",
            escaped(mark)
        ),
        None => String::new(),
    };
    std::fs::write(
        &page,
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
             <title>{title}</title>\n<style>\n:root {{ --quote-border: #ccc; --quote-bg: \
             #f4f4f4; --sidebar-active: #1f1fff; --fg: #333; }}\nbody {{ font-family: \
             sans-serif; max-width: 1100px; margin: 1em auto; }}\n{STYLE}</style></head>\n\
             <body><h1>{title}</h1>\n<p>{about} Step with Next and Previous, the slider, or \
             the arrow keys.{said}</p>\n<div class=\"stepper\" data-mark=\"{mark}\"><script \
             type=\"application/json\">\n{statements}\n\
             </script></div>\n<script>\n{SCRIPT}</script></body></html>\n",
            title = escaped(title),
            about = escaped(about),
            mark = escaped(mark.as_deref().unwrap_or("")),
            statements = statements.replace("</", "<\\/"),
        ),
    )?;
    Ok(page)
}

/// The step of a recording a student most likely wants to see, in the stepper's words for a
/// mark (`book/stepper.js`): the first error the server answered (`worker-2 fails with 23505`)
/// other than the ends a script deals out itself (a kill, 57P01; a cancel, 57014), or else the
/// last wait (`worker-2 waits on worker-1`: a race's holder is waited on first, by the worker
/// that then holds up the other).
fn first_trouble(json: &str) -> Option<String> {
    let recorded: serde_json::Value = serde_json::from_str(json).ok()?;
    let statements = recorded.get("statements")?.as_array()?;
    let session = |s: &serde_json::Value| s.get("session")?.as_str().map(str::to_string);
    let refused = statements.iter().find_map(|s| {
        let sqlstate = s.get("answer")?.get("failed")?.as_str()?;
        let scripted = ["57P01", "57014"].contains(&sqlstate);
        (!scripted).then(|| Some(format!("{} fails with {sqlstate}", session(s)?)))?
    });
    refused.or_else(|| {
        statements.iter().rev().find_map(|s| {
            let holder = s.get("waited_on")?.as_array()?.first()?.as_str()?;
            Some(format!("{} waits on {holder}", session(s)?))
        })
    })
}

/// Why a run recorded nothing: the test does not exist, it plays no scripted scenario, or the
/// exercise does not build.
fn nothing_recorded(root: &Path, lesson: &Lesson, test: &str, verdict: &Verdict) -> String {
    if let Verdict::DoesNotCompile(errors) = verdict {
        return format!("the exercise does not compile, so no test ran:\n{errors}");
    }
    let listed = tests_run::cargo(root)
        .args([
            "test",
            "-q",
            "-p",
            &lesson.exercise_package(),
            "--test",
            "lesson",
        ])
        .args(["--", "--list", "--format", "terse"])
        .output();
    let mut tests: Vec<String> = Vec::new();
    if let Ok(output) = &listed {
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            match line.strip_suffix(": test") {
                Some(name) if !tests.iter().any(|t| t == name) => tests.push(name.to_string()),
                _ => {}
            }
        }
    }
    if tests.iter().any(|t| t == test) {
        format!(
            "{test} plays no scripted scenario, so there are no statements to show: it \
             delivers one event at a time, or releases many at once (a barrier). Its verdict is \
             in `cargo workbook check {}`.",
            lesson.number
        )
    } else {
        format!(
            "lesson {} has no test named {test}; its tests are:\n  {}",
            lesson.number,
            tests.join("\n  ")
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_page_holds_the_stepper_and_statements_that_cannot_end_its_script() {
        let folder = tempfile::tempdir().unwrap();
        let json = folder.path().join("t.json");
        std::fs::write(&json, r#"{"statements": [{"sql": "SELECT '</script>'"}]}"#).unwrap();
        let page = std::fs::read_to_string(
            super::stepper_page(&json, "t<1>", super::YOUR_EXERCISE).unwrap(),
        )
        .unwrap();
        assert!(page.contains("<title>t&lt;1></title>"), "{page}");
        assert!(page.contains(r#"SELECT '<\/script>'"#), "{page}");
        assert_eq!(page.matches("</script>").count(), 2, "{page}");
        assert!(page.contains("function build(root)"), "{page}");
    }

    #[test]
    fn the_page_marks_the_first_error_or_else_the_last_wait() {
        let waited = r#"{"statements": [
            {"session": "w1", "waited_on": ["holder"], "answer": {"failed": "57P01"}},
            {"session": "w2", "waited_on": ["w1"], "answer": {"done": ["INSERT 0 1"]}}]}"#;
        assert_eq!(
            super::first_trouble(waited).as_deref(),
            Some("w2 waits on w1")
        );
        let refused = r#"{"statements": [{"session": "w2", "waited_on": ["w1"], "answer": null},
            {"session": "w1", "waited_on": [], "answer": {"failed": "23505"}}]}"#;
        assert_eq!(
            super::first_trouble(refused).as_deref(),
            Some("w1 fails with 23505")
        );
        assert_eq!(super::first_trouble(r#"{"statements": []}"#), None);
        assert_eq!(super::first_trouble("not json"), None);
    }

    #[test]
    fn a_tests_scenarios_are_read_in_the_order_played() {
        let folder = tempfile::tempdir().unwrap();
        for (n, stem) in ["t", "t-2", "t-10", "t-9"].iter().enumerate() {
            std::fs::write(folder.path().join(format!("{stem}.txt")), n.to_string()).unwrap();
        }
        let read: Vec<String> = (super::recorded_in(folder.path()).into_iter())
            .map(|(json, text)| format!("{}={text}", json.file_name().unwrap().to_string_lossy()))
            .collect();
        assert_eq!(
            read,
            ["t.json=0", "t-2.json=1", "t-9.json=3", "t-10.json=2"]
        );
    }
}
