//! `cargo repeat <lesson> [--runs K]`: runs a lesson's race and fault tests K times (default
//! 200) against the shipped exercise and the solution, and counts. A race test is only worth
//! having if it catches the exercise every time and passes the solution every time.

use std::process::ExitCode;

use verify::Lesson;
use verify::probe::{Probe, Side, Verdict};

const USAGE: &str = "usage: cargo repeat <lesson> [--runs K]   e.g. cargo repeat 02 --runs 200";

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
    println!("{:<40} {:<30} solution", "", "exercise");
    let mut all_good = true;
    for probe in (lesson.probes)() {
        let caught = count_caught(&probe, runs).await;
        let (passed, first_failure) = count_passed(&probe, runs).await;
        println!(
            "{:<40} {:<30} {passed}/{runs} passed",
            probe.name,
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
    /// Rounds one run plays when nothing is caught.
    rounds_per_run: usize,
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
        if self.rounds_per_run > 1 {
            let share = 100.0 * self.caught as f64 / self.rounds_played as f64;
            text.push_str(&format!(" ({share:.0}% of rounds)"));
        }
        text
    }
}

async fn count_caught(probe: &Probe, runs: usize) -> Caught {
    let mut found = Caught {
        runs,
        caught: 0,
        rounds_per_run: probe.rounds,
        rounds_played: 0,
        first_other: None,
    };
    for _ in 0..runs {
        match probe.run(Side::Exercise).await {
            Verdict::Caught { round } => {
                found.caught += 1;
                found.rounds_played += round;
            }
            Verdict::Passed => {
                found.rounds_played += probe.rounds;
                found
                    .first_other
                    .get_or_insert("exercise: passed (the race was missed)".into());
            }
            Verdict::Other(message) => {
                found.rounds_played += probe.rounds;
                found
                    .first_other
                    .get_or_insert(format!("exercise: {message}"));
            }
        }
    }
    found
}

async fn count_passed(probe: &Probe, runs: usize) -> (usize, Option<String>) {
    let (mut passed, mut first_failure) = (0, None);
    for _ in 0..runs {
        match probe.run(Side::Solution).await {
            Verdict::Passed => passed += 1,
            Verdict::Caught { .. } | Verdict::Other(_) => {
                first_failure.get_or_insert("solution: failed".to_string());
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
