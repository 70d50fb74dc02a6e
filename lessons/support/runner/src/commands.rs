//! The subcommands. Each returns the exit code on success, or a message for the person at the
//! terminal: a bad lesson name, a missing toolchain, an unreadable file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use console::style;

use crate::catalog::{self, LESSONS, Lesson};
use crate::progress::{Progress, fingerprint};
use crate::tests_run::{self, Verdict};
use crate::{Format, results, shipped};

pub fn check(root: &Path, name: &str, kafka: bool, format: Format) -> Result<ExitCode, String> {
    let lesson = catalog::find(name)?;
    if format == Format::Json {
        return check_as_json(root, lesson, kafka);
    }
    if kafka {
        return check_on_kafka(root, lesson);
    }
    eprintln!("running cargo test -p {} …", lesson.exercise_package());
    let verdict = tests_run::run(root, lesson)?;
    if worth_remembering(&verdict) {
        let mut progress = Progress::load(root);
        let entry = progress.entry(lesson);
        entry.fingerprint = fingerprint(&lesson.inputs(root));
        entry.verdict = verdict.word().to_string();
        progress.save(root)?;
    }
    print!("{}", explain(lesson, &verdict));
    Ok(match verdict {
        Verdict::Solved => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}

/// `check NN --format json`: the verdict as data ([`results`]), on standard output; what cargo
/// and the tests print on the way goes to standard error, as in a check in words.
fn check_as_json(root: &Path, lesson: &'static Lesson, kafka: bool) -> Result<ExitCode, String> {
    let (package, extra): (String, &[&str]) = match kafka {
        true => {
            kafka_track(lesson)?;
            (
                lesson.exercise_package(),
                &["--features", "kafka", "--test", "kafka"],
            )
        }
        false => (lesson.exercise_package(), &[]),
    };
    eprintln!("running cargo test -p {package} …");
    let (results, verdict) = results::run(root, lesson, &package, extra)?;
    if !kafka && worth_remembering(&verdict) {
        let mut progress = Progress::load(root);
        let entry = progress.entry(lesson);
        entry.fingerprint = fingerprint(&lesson.inputs(root));
        entry.verdict = verdict.word().to_string();
        progress.save(root)?;
    }
    println!("{}", results::to_json(&results));
    Ok(match results.status {
        results::Status::Pass => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}

/// Refuses a lesson with no Kafka track, naming those that have one.
fn kafka_track(lesson: &Lesson) -> Result<(), String> {
    if lesson.has_kafka_track() {
        return Ok(());
    }
    let with: Vec<&str> = catalog::KAFKA_TRACK.iter().map(|k| k.lesson).collect();
    Err(format!(
        "lesson {} has no Kafka track; lesson(s) {} have one",
        lesson.number,
        with.join(", ")
    ))
}

/// `check NN --kafka`: the lesson's tests on a Kafka-protocol broker. Progress is the
/// PostgreSQL track's alone: the Kafka track is an extra a student opts into.
fn check_on_kafka(root: &Path, lesson: &Lesson) -> Result<ExitCode, String> {
    let n = lesson.number;
    kafka_track(lesson)?;
    eprintln!(
        "running cargo test -p {} --features kafka --test kafka (the first build of the Kafka \
         client, librdkafka, takes a few minutes) …",
        lesson.exercise_package()
    );
    let verdict = tests_run::run_on_kafka(root, lesson)?;
    let text = explain(lesson, &verdict)
        .replacen(&format!("lesson {n}"), &format!("lesson {n} on Kafka"), 1)
        .replace("src/lib.rs", catalog::kafka_code(n));
    print!("{text}");
    Ok(match verdict {
        Verdict::Solved => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}

/// The verdict in words: what passed, what failed and why (the tests' own messages), and what
/// to do next.
pub fn explain(lesson: &Lesson, verdict: &Verdict) -> String {
    let n = lesson.number;
    match verdict {
        Verdict::Solved => format!(
            "{} lesson {n} is solved: every test passes. Compare with the solution: \
             `cargo workbook diff {n}`.\n",
            style("✓").green().bold()
        ),
        Verdict::DoesNotCompile(errors) => format!(
            "{} lesson {n}: the exercise does not compile, so no test ran.\n\n{errors}\n\n\
             Fix exercises/{}/src/lib.rs and check again.\n",
            style("✗").red().bold(),
            lesson.folder
        ),
        Verdict::Failing(failures) if could_not_run(failures).is_some() => format!(
            "{} lesson {n}: no test could run, so nothing is known about your handler yet.\n\n{}\n",
            style("✗").red().bold(),
            could_not_run(failures).unwrap_or_default()
        ),
        Verdict::Failing(failures) => {
            let mut text = format!(
                "{} lesson {n}: {} test(s) fail.\n",
                style("✗").red().bold(),
                failures.len()
            );
            for failure in failures {
                text.push_str(&format!(
                    "\n{} {}\n{}\n",
                    style("──").dim(),
                    style(&failure.test).bold(),
                    failure.message
                ));
            }
            text.push_str(&format!(
                "\nRead {}, or ask for a hint: `cargo workbook hint {n}`.\n",
                lesson.chapter()
            ));
            text
        }
    }
}

/// Watches the named lesson, or the first one not solved yet.
pub fn watch(root: &Path, name: Option<&str>) -> Result<ExitCode, String> {
    let lesson = match name {
        Some(name) => catalog::find(name)?,
        None => {
            let mut progress = Progress::load(root);
            let mut first_unsolved = None;
            for lesson in LESSONS {
                if current_verdict(root, lesson, &mut progress)? != "solved" {
                    first_unsolved = Some(lesson);
                    break;
                }
            }
            progress.save(root)?;
            first_unsolved.unwrap_or(&LESSONS[LESSONS.len() - 1])
        }
    };
    crate::watch::watch(root, lesson)
}

/// A verdict says something about the files only if the tests ran: "no database" must not be
/// remembered as "not solved" once the database is back.
pub(crate) fn worth_remembering(verdict: &Verdict) -> bool {
    match verdict {
        Verdict::Failing(failures) => could_not_run(failures).is_none(),
        _ => true,
    }
}

/// When every test failed before it began (no database, say), the one reason, said once.
fn could_not_run(failures: &[crate::tests_run::Failure]) -> Option<String> {
    const MARK: &str = "the test could not run: ";
    let reasons: Vec<&str> = failures
        .iter()
        .map(|f| f.message.split_once(MARK).map(|(_, reason)| reason))
        .collect::<Option<_>>()?;
    reasons.first().map(|reason| reason.to_string())
}

pub fn hint(root: &Path, name: &str) -> Result<ExitCode, String> {
    let lesson = catalog::find(name)?;
    let file = lesson.hints_file(root);
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("could not read the hints in {}: {e}", file.display()))?;
    let hints = split_hints(&text);
    if hints.is_empty() {
        return Err(format!("{} holds no `## ` hint sections", file.display()));
    }
    let mut progress = Progress::load(root);
    let entry = progress.entry(lesson);
    let shown = entry.hints_seen.min(hints.len() - 1);
    entry.hints_seen = shown + 1;
    progress.save(root)?;
    let (title, body) = &hints[shown];
    println!(
        "{} {title}\n\n{body}",
        style(format!(
            "Hint {} of {} for lesson {}:",
            shown + 1,
            hints.len(),
            lesson.number
        ))
        .bold()
    );
    if shown + 1 < hints.len() {
        println!(
            "\nStill stuck? Run `cargo workbook hint {}` again.",
            lesson.number
        );
    } else {
        println!(
            "\nThat was the last hint; {} explains the rest.",
            lesson.chapter()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `## Title` sections of a hints file, in order.
fn split_hints(text: &str) -> Vec<(String, String)> {
    let mut hints: Vec<(String, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            hints.push((title.trim().to_string(), Vec::new()));
        } else if let Some((_, body)) = hints.last_mut() {
            body.push(line);
        }
    }
    hints
        .into_iter()
        .map(|(title, body)| (title, body.join("\n").trim().to_string()))
        .collect()
}

pub fn reset(root: &Path, name: &str) -> Result<ExitCode, String> {
    let lesson = catalog::find(name)?;
    let dir = lesson.exercise_dir(root);
    let files = shipped::files(lesson);
    if files.is_empty() {
        return Err(format!(
            "the runner holds no shipped copy of lesson {}",
            lesson.number
        ));
    }
    let mut restored = 0;
    for (relative, contents) in files {
        let path = dir.join(relative);
        if std::fs::read(&path).ok().as_deref() == Some(contents) {
            continue;
        }
        std::fs::create_dir_all(path.parent().expect("a file is in a directory"))
            .and_then(|()| std::fs::write(&path, contents))
            .map_err(|e| format!("could not restore {}: {e}", path.display()))?;
        println!(
            "restored exercises/{}/{}",
            lesson.folder,
            relative.display()
        );
        restored += 1;
    }
    let shipped_paths: Vec<&Path> = shipped::files(lesson).into_iter().map(|(p, _)| p).collect();
    for extra in relative_files(&dir) {
        let students_own = ["src", "migrations"].iter().any(|d| extra.starts_with(d));
        if students_own && !shipped_paths.contains(&extra.as_path()) {
            // Deleting what the student wrote is not ours to do; say it is there.
            println!(
                "left alone: exercises/{}/{} is not part of the shipped exercise (delete it if \
                 it should go)",
                lesson.folder,
                extra.display()
            );
        }
    }
    if restored == 0 {
        println!("exercises/{} is already as shipped.", lesson.folder);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn diff(root: &Path, name: &str, force: bool) -> Result<ExitCode, String> {
    let lesson = catalog::find(name)?;
    allowed_to_see_solution(root, lesson, force)?;
    let (ours, theirs) = (lesson.exercise_dir(root), lesson.solution_dir(root));
    let mut files = relative_files(&ours);
    files.extend(relative_files(&theirs));
    files.sort();
    files.dedup();
    let mut same = true;
    for file in files {
        let old = std::fs::read_to_string(ours.join(&file)).unwrap_or_default();
        let new = std::fs::read_to_string(theirs.join(&file)).unwrap_or_default();
        if old == new {
            continue;
        }
        same = false;
        let label = file.display();
        println!(
            "{}",
            style(format!("--- exercises/{}/{label}", lesson.folder)).red()
        );
        println!(
            "{}",
            style(format!("+++ solutions/{}/{label}", lesson.folder)).green()
        );
        let diff = similar::TextDiff::from_lines(&old, &new);
        for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
            println!("{}", style(hunk.header()).cyan());
            for change in hunk.iter_changes() {
                let line = format!("{}{}", change.tag(), change.value().trim_end_matches('\n'));
                match change.tag() {
                    similar::ChangeTag::Delete => println!("{}", style(line).red()),
                    similar::ChangeTag::Insert => println!("{}", style(line).green()),
                    similar::ChangeTag::Equal => println!("{line}"),
                }
            }
        }
    }
    if same {
        println!("The exercise and the solution are identical.");
    }
    Ok(ExitCode::SUCCESS)
}

pub fn solution(root: &Path, name: &str, force: bool) -> Result<ExitCode, String> {
    let lesson = catalog::find(name)?;
    allowed_to_see_solution(root, lesson, force)?;
    let dir = lesson.solution_dir(root);
    for file in relative_files(&dir) {
        if file == Path::new("Cargo.toml") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(&file))
            .map_err(|e| format!("could not read {}: {e}", file.display()))?;
        println!(
            "{}\n{text}",
            style(format!("// solutions/{}/{}", lesson.folder, file.display())).bold()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A student sees the solution once their exercise passes; before that only with `--force`.
fn allowed_to_see_solution(root: &Path, lesson: &Lesson, force: bool) -> Result<(), String> {
    if force {
        return Ok(());
    }
    let mut progress = Progress::load(root);
    let verdict = current_verdict(root, lesson, &mut progress)?;
    progress.save(root)?;
    if verdict == "solved" {
        return Ok(());
    }
    Err(format!(
        "lesson {} is not solved yet, so its solution stays hidden: try `cargo workbook hint \
         {}` first. Instructors, and students who have decided to look: add --force.",
        lesson.number, lesson.number
    ))
}

/// The cached verdict if nothing changed since it was reached; otherwise runs the tests.
fn current_verdict(
    root: &Path,
    lesson: &Lesson,
    progress: &mut Progress,
) -> Result<String, String> {
    let print = fingerprint(&lesson.inputs(root));
    if let Some(verdict) = progress.cached_verdict(lesson, &print) {
        return Ok(verdict.to_string());
    }
    eprintln!(
        "checking lesson {} (cargo test -p {}) …",
        lesson.number,
        lesson.exercise_package()
    );
    let verdict = tests_run::run(root, lesson)?;
    if worth_remembering(&verdict) {
        let entry = progress.entry(lesson);
        entry.fingerprint = print;
        entry.verdict = verdict.word().to_string();
    }
    Ok(verdict.word().to_string())
}

fn relative_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_name() == "target" {
                continue;
            }
            if path.is_dir() {
                walk(&path, base, out);
            } else if let Ok(relative) = path.strip_prefix(base) {
                out.push(relative.to_path_buf());
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    files.sort();
    files
}

/// The full sweep (`WORKBOOK_SWEEP=full`: every wrong fix against every scenario and every
/// barrier round), and the checks that read exercises/ as it is (`--include-ignored`: on a
/// student's checkout they fail by design, so the root suite leaves them out).
pub fn verify(root: &Path) -> Result<ExitCode, String> {
    eprintln!(
        "running WORKBOOK_SWEEP=full cargo test -p workbook-verify -- --include-ignored (several \
         minutes) …"
    );
    let sweep = tests_run::test_package(
        root,
        "workbook-verify",
        &["--", "--include-ignored"],
        &[("WORKBOOK_SWEEP", "full")],
    )?;
    let failures = match sweep {
        Verdict::Solved => {
            println!(
                "{} every shipped exercise fails for its lesson's reason (and exercises/ is as \
                 shipped), every solution passes, each exercise runs the same test file as its \
                 solution, and every wrong fix in lessons/*/wrong-fixes is caught for its reason \
                 by every scenario that fails it (or passes every scenario and round, when it is \
                 correct after all).",
                style("✓").green().bold()
            );
            return Ok(ExitCode::SUCCESS);
        }
        Verdict::DoesNotCompile(errors) => {
            println!(
                "{} the checks do not compile:\n\n{errors}",
                style("✗").red().bold()
            );
            return Ok(ExitCode::FAILURE);
        }
        Verdict::Failing(failures) => failures,
    };
    for lesson in LESSONS {
        let theirs: Vec<_> = failures
            .iter()
            .filter(|f| lesson_of(&f.test) == Some(lesson.number))
            .collect();
        if theirs.is_empty() {
            println!("{} lesson {}", style("✓").green(), lesson.number);
            continue;
        }
        println!("{} lesson {}", style("✗").red().bold(), lesson.number);
        for failure in theirs {
            println!(
                "  {}\n{}\n",
                style(&failure.test).bold(),
                indent(&failure.message)
            );
        }
    }
    for failure in failures.iter().filter(|f| lesson_of(&f.test).is_none()) {
        println!(
            "{} {}\n{}\n",
            style("✗").red().bold(),
            style(&failure.test).bold(),
            indent(&failure.message)
        );
    }
    Ok(ExitCode::FAILURE)
}

/// The lesson a check belongs to: the unit tests of its `checks.rs` (`lesson_02::tests::…`) and
/// of its wrong fixes (`lesson_02_…`, in tests/wrong_fixes.rs).
fn lesson_of(test: &str) -> Option<&str> {
    let rest = test
        .strip_prefix("wrong_fixes::tests::")
        .unwrap_or(test)
        .strip_prefix("lesson_")?;
    rest.get(..2)
        .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|line| format!("    {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `cargo repeat`, for `lesson`: `runs` of each race and fault test, only those whose names
/// contain one of `only` (if any), and none whose names contain one of `skip`.
pub fn repeat(
    root: &Path,
    name: &str,
    runs: u32,
    (only, skip): (&[String], &[String]),
    kafka: bool,
) -> Result<ExitCode, String> {
    let lesson = catalog::find(name)?;
    if kafka {
        kafka_track(lesson)?;
        let filter = crate::repeat_kafka::Filter { only, skip };
        return crate::repeat_kafka::repeat(root, lesson, runs, filter);
    }
    let filters = (only.iter().flat_map(|text| ["--only", text.as_str()]))
        .chain(skip.iter().flat_map(|text| ["--skip", text.as_str()]));
    let status = tests_run::cargo(root)
        .args([
            "run",
            "--quiet",
            // The first count builds every lesson's checks for a minute or more: the same
            // progress bar as `cargo workbook`'s own build (see .cargo/config.toml).
            "--config",
            "term.progress.when='always'",
            "--config",
            "term.progress.width=60",
            "-p",
            "workbook-measure",
            "--bin",
            "repeat",
            "--",
        ])
        .args([lesson.number, "--runs", &runs.to_string()])
        .args(filters)
        .status()
        .map_err(tests_run::cargo_missing)?;
    // The count's own exit code: 0 all caught and passed, 1 not, 2 refused.
    Ok(ExitCode::from(
        status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .unwrap_or(1),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_every_test_shares_is_said_once() {
        let failure = |message: &str| crate::tests_run::Failure {
            test: "t".into(),
            message: message.into(),
        };
        let no_server = "Error: x: the test could not run: no PostgreSQL server is available";
        assert_eq!(
            could_not_run(&[failure(no_server), failure(no_server)]).as_deref(),
            Some("no PostgreSQL server is available")
        );
        assert_eq!(
            could_not_run(&[failure(no_server), failure("Error: lost")]),
            None
        );
    }

    #[test]
    fn a_check_is_grouped_under_its_lesson() {
        assert_eq!(lesson_of("lesson_02::tests::exercise_races"), Some("02"));
        assert_eq!(
            lesson_of("wrong_fixes::tests::lesson_04_for_share"),
            Some("04")
        );
        assert_eq!(
            lesson_of("every_exercise_and_its_solution_share_one_test_file"),
            None
        );
    }

    #[test]
    fn hints_are_the_sections_of_their_file_in_order() {
        let text = "# Hints\n\n## A nudge\nLook at the check.\n\n## The mechanism\nThe key.\n";
        assert_eq!(
            split_hints(text),
            vec![
                ("A nudge".to_string(), "Look at the check.".to_string()),
                ("The mechanism".to_string(), "The key.".to_string())
            ]
        );
    }
}
