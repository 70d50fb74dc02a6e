//! `cargo repeat <lesson> [--runs K]`: runs a lesson's race tests K times (default 200) against
//! the shipped exercise and the solution, and counts. A race test is only worth having if it
//! catches the exercise every time and passes the solution every time.

use std::process::ExitCode;

use verify::Lesson;
use verify::lesson_01::{self, RaceTest};

const USAGE: &str = "usage: cargo repeat <lesson> [--runs K]   e.g. cargo repeat 01 --runs 200";

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let (lesson, runs) = match parse(std::env::args().skip(1)) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    println!(
        "lesson {} ({}), {runs} runs of each race test",
        lesson.id, lesson.title
    );
    println!("{:<34} {:<26} solution", "", "exercise");
    let mut all_good = true;
    for test in lesson_01::RACE_TESTS {
        let (caught, first_other) = count_caught(test, runs).await;
        let passed = count_passed(test, runs).await;
        let caught_column = format!("{caught}/{runs} caught");
        println!(
            "{:<34} {caught_column:<26} {}/{runs} passed",
            test.name(),
            passed.0
        );
        for note in [first_other, passed.1].into_iter().flatten() {
            println!("    first unexpected result: {note}");
        }
        all_good &= caught == runs && passed.0 == runs;
    }
    if all_good {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// How many runs failed the exercise for the intended reason, and the first run that did not.
async fn count_caught(test: RaceTest, runs: usize) -> (usize, Option<String>) {
    let (mut caught, mut first_other) = (0, None);
    for _ in 0..runs {
        match test.run(lesson_01::exercise()).await {
            Err(violation) if lesson_01::is_intended(&violation.kind) => caught += 1,
            Err(violation) => {
                first_other.get_or_insert(format!("exercise: {violation}"));
            }
            Ok(()) => {
                first_other.get_or_insert("exercise: passed (the race was missed)".into());
            }
        }
    }
    (caught, first_other)
}

async fn count_passed(test: RaceTest, runs: usize) -> (usize, Option<String>) {
    let (mut passed, mut first_failure) = (0, None);
    for _ in 0..runs {
        match test.run(lesson_01::solution()).await {
            Ok(()) => passed += 1,
            Err(violation) => {
                first_failure.get_or_insert(format!("solution: {violation}"));
            }
        }
    }
    (passed, first_failure)
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<(&'static Lesson, usize), String> {
    let name = args.next().ok_or("which lesson?")?;
    let lesson = Lesson::find(&name).ok_or_else(|| {
        let known: Vec<_> = verify::LESSONS.iter().map(|l| l.id).collect();
        format!(
            "unknown lesson {name:?}: the lessons are {}",
            known.join(", ")
        )
    })?;
    let mut runs = 200;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => {
                let value = args.next().ok_or("--runs needs a number")?;
                runs = value.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                    format!("--runs takes a positive whole number, not {value:?}")
                })?;
            }
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    Ok((lesson, runs))
}
