//! `cargo repeat <lesson> [--runs K]`: runs a lesson's race tests K times (default 200) against
//! the shipped exercise and the solution, and counts. A race test is only worth having if it
//! catches the exercise every time and passes the solution every time.

use std::process::ExitCode;

use check_then_act::{Delivery, scenarios};
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
    println!("{:<34} {:<30} solution", "", "exercise");
    let mut all_good = true;
    for test in lesson_01::RACE_TESTS {
        let caught = count_caught(test, runs).await;
        let (passed, first_failure) = count_passed(test, runs).await;
        println!(
            "{:<34} {:<30} {passed}/{runs} passed",
            test.name(),
            caught.column()
        );
        all_good &= caught.caught == runs && passed == runs;
        for note in [caught.first_other, first_failure].into_iter().flatten() {
            println!("    first unexpected result: {note}");
        }
    }
    if all_good {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What the runs against the exercise found.
struct Caught {
    runs: usize,
    /// Runs that failed for the lesson's reason.
    caught: usize,
    /// Barrier rounds played in all runs, and how many of them caught the race: a run stops at
    /// the first round that does.
    rounds_played: usize,
    /// The first run that passed, or failed for another reason.
    first_other: Option<String>,
}

impl Caught {
    fn column(&self) -> String {
        let runs = self.runs;
        let mut text = format!("{}/{runs} caught", self.caught);
        if self.rounds_played > self.runs {
            let share = 100.0 * self.caught as f64 / self.rounds_played as f64;
            text.push_str(&format!(" ({share:.0}% of rounds)"));
        }
        text
    }
}

async fn count_caught(test: RaceTest, runs: usize) -> Caught {
    let mut found = Caught {
        runs,
        caught: 0,
        rounds_played: 0,
        first_other: None,
    };
    for _ in 0..runs {
        let result = test.run(lesson_01::exercise()).await;
        found.rounds_played += match &result {
            Err(violation) => match violation.during {
                Delivery::Barrier { round, .. } => round,
                _ => 1,
            },
            Ok(()) => match test {
                RaceTest::Barrier { .. } => scenarios::BARRIER_ROUNDS,
                RaceTest::ForcedInterleaving => 1,
            },
        };
        match result {
            Err(violation) if lesson_01::is_intended(&violation.kind) => found.caught += 1,
            Err(violation) => {
                found
                    .first_other
                    .get_or_insert(format!("exercise: {violation}"));
            }
            Ok(()) => {
                found
                    .first_other
                    .get_or_insert("exercise: passed (the race was missed)".into());
            }
        }
    }
    found
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
