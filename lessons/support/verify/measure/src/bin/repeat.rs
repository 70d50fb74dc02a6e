//! `cargo repeat <lesson> [--runs K] [--only TEXT]… [--skip TEXT]…`: runs a lesson's race and
//! fault tests K times (default 200) against the exercise (as it is in the working copy: the
//! shipped one, or a student's own fix) and the solution, and counts;
//! with `--only`, just the tests whose names contain one of the TEXTs; with `--skip`, all but
//! those (after a change to the observer, say, which the barrier tests never use: `--skip
//! released_together`). The tests go by their names in the lesson's `exercise-tests.rs`. A race
//! test is only worth having if it catches the exercise every time and passes the solution
//! every time.

use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};

use verify::Lesson;
use verify::probe::{Probe, Side, Verdict};

const USAGE: &str = "usage: cargo repeat <lesson> [--runs K] [--only TEXT]... [--skip TEXT]...   \
                     e.g. cargo repeat 02 --runs 200, cargo repeat 10 --skip released_together";

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let (lesson, runs, Filter { only, skip }) = match parse(std::env::args().skip(1)) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    println!(
        "lesson {} ({}), {runs} runs of each race test",
        lesson.number,
        lesson.entry().title
    );
    let mut all_good = true;
    let chosen = |name: &str| {
        (only.is_empty() || only.iter().any(|text| name.contains(text)))
            && !skip.iter().any(|text| name.contains(text))
    };
    for probe in (lesson.probes)()
        .into_iter()
        .filter(|probe| chosen(&probe.name))
    {
        let bar = progress_bar(&probe.name, runs);
        let caught = count_caught(&probe, runs, &bar).await;
        let (passed, first_failure) = count_passed(&probe, runs, &bar).await;
        bar.finish_and_clear();
        let name = match probe.rounds {
            1 => probe.name.clone(),
            rounds => format!("{} x {rounds} rounds", probe.name),
        };
        // The names are the tests' own, long and descriptive: each on a line of its own.
        println!(
            "{name}\n    exercise: {:<30} solution: {passed}/{runs} passed",
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

/// Runs against the exercise, then the solution: counts so far and the time left, on stderr and
/// only on a terminal (a run of 200 can take a quarter of an hour).
fn progress_bar(test: &str, runs: usize) -> ProgressBar {
    let bar = ProgressBar::new(2 * runs as u64);
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:24}] {pos}/{len} runs, {msg}, ETA {eta}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(test.to_string());
    bar.set_message("the exercise first");
    bar
}

async fn count_caught(probe: &Probe, runs: usize, bar: &ProgressBar) -> Caught {
    let mut found = Caught {
        runs,
        caught: 0,
        rounds_per_run: probe.rounds,
        rounds_played: 0,
        first_other: None,
    };
    for done in 1..=runs {
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
        bar.set_message(format!("exercise caught {}/{done}", found.caught));
        bar.inc(1);
    }
    found
}

async fn count_passed(probe: &Probe, runs: usize, bar: &ProgressBar) -> (usize, Option<String>) {
    let (mut passed, mut first_failure) = (0, None);
    for done in 1..=runs {
        match probe.run(Side::Solution).await {
            Verdict::Passed => passed += 1,
            Verdict::Caught { round } => {
                first_failure.get_or_insert(format!(
                    "solution: failed for the lesson's reason, in round {round}"
                ));
            }
            Verdict::Other(why) => {
                first_failure.get_or_insert(format!("solution: {why}"));
            }
        }
        bar.set_message(format!("solution passed {passed}/{done}"));
        bar.inc(1);
    }
    (passed, first_failure)
}

/// Which of the lesson's tests to run, by parts of their names.
struct Filter {
    only: Vec<String>,
    skip: Vec<String>,
}

fn parse(
    mut args: impl Iterator<Item = String>,
) -> Result<(&'static Lesson, usize, Filter), String> {
    let name = args.next().ok_or("which lesson?")?;
    let lesson = Lesson::find(&name)?;
    let mut runs = 200;
    let (mut only, mut skip) = (Vec::new(), Vec::new());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => {
                let value = args.next().ok_or("--runs needs a number")?;
                runs = value.parse().ok().filter(|&n| n >= 1).ok_or_else(|| {
                    format!("--runs takes a whole number of at least 1, not {value:?}")
                })?;
            }
            "--only" => only.push(args.next().ok_or("--only needs a part of a test's name")?),
            "--skip" => skip.push(args.next().ok_or("--skip needs a part of a test's name")?),
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    Ok((lesson, runs, Filter { only, skip }))
}
