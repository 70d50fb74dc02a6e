//! `cargo workbook break NN FILE`: plays a spec of the student's own against the lesson's
//! shipped exercise and its solution, each on throwaway databases, and says whether it exposes
//! the race. The runner starts this binary, so the runner itself never links a database client.
//!
//! Exit status: 0 when the spec exposes the race, 1 when it does not, 2 when it cannot be
//! played (an unknown lesson, a file that cannot be read or does not make sense).

use std::process::ExitCode;

use verify::breaking::{self, BREAKABLE};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match run().await {
        Ok(code) => code,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(2)
        }
    }
}

async fn run() -> Result<ExitCode, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [lesson, file] = args.as_slice() else {
        return Err("usage: workbook-break NN FILE (a spec, as in lessons/NN-…/specs/)".into());
    };
    let entry = catalog::find(lesson)?;
    let numbers: Vec<&str> = BREAKABLE.iter().map(|b| b.number).collect();
    let Some(lesson) = BREAKABLE.iter().find(|b| b.number == entry.number) else {
        return Err(format!(
            "`break` does not play lesson {}'s races yet; it plays lesson(s) {}",
            entry.number,
            numbers.join(", ")
        ));
    };
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("could not read {file}: {e}. Give the path of a spec file."))?;
    let spec = breaking::read(lesson, &text).map_err(|e| format!("{file}, {e}"))?;
    let unplayed: Vec<String> = (spec.unplayed().iter())
        .map(|step| step.name.clone())
        .collect();
    eprintln!(
        "playing {file} against lesson {}'s shipped exercise and its solution …",
        lesson.number
    );
    let played = breaking::play(lesson, &spec).await;
    print!("{}", breaking::report(lesson.number, &played, &unplayed));
    Ok(match played.iter().any(|one| one.exposes()) {
        true => ExitCode::SUCCESS,
        false => ExitCode::FAILURE,
    })
}
