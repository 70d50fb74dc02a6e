//! `cargo workbook kafka start [--fresh]|status|stop|url`: the development broker (see
//! `kit::dev_broker`), for the console tools of the book's by-hand page. The runner runs this
//! binary, as it runs `workbook-db`.

use std::process::ExitCode;

use kit::dev_broker::{DevBroker, Found, description};

const USAGE: &str = "usage: cargo workbook kafka start [--fresh]|status|stop|url";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let broker = DevBroker::from_env();
    let theirs = |bootstrap: &str| {
        println!(
            "KAFKA_BOOTSTRAP_SERVERS is set: the cluster at {bootstrap} is yours to run, so \
             nothing was started, stopped or emptied. The Kafka track's tests and `cargo \
             workbook kafka url` use it."
        )
    };
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["start"] | ["start", "--fresh"] => {
            let fresh = args.len() == 2;
            broker.start(fresh).map(|found| match found {
                Found::Ours(bootstrap) => {
                    println!(
                        "Running: {} at {bootstrap}{}; its log is in {}.",
                        description(),
                        if fresh { ", empty" } else { "" },
                        broker.dir().display()
                    );
                    println!("`cargo workbook kafka stop` stops it and keeps the log.");
                }
                Found::Theirs(bootstrap) => theirs(&bootstrap),
                Found::NotRunning => unreachable!("a start leaves it running"),
            })
        }
        ["status"] => {
            match broker.status() {
                Found::Ours(bootstrap) => println!("Running: {} at {bootstrap}.", description()),
                Found::Theirs(bootstrap) => theirs(&bootstrap),
                Found::NotRunning => {
                    println!("Not running: {}.", description());
                    println!("Start it with: cargo workbook kafka start");
                }
            }
            Ok(())
        }
        ["stop"] => broker.stop().map(|found| match found {
            Found::Ours(_) => println!(
                "Stopped {}. Its log is kept: `cargo workbook kafka start` brings back its \
                 topics and offsets.",
                description()
            ),
            Found::Theirs(bootstrap) => theirs(&bootstrap),
            Found::NotRunning => println!("Not running: {}; nothing to stop.", description()),
        }),
        // For the book's commands: `-b "$(cargo workbook kafka url)"`.
        ["url"] => match broker.status() {
            Found::Ours(bootstrap) | Found::Theirs(bootstrap) => {
                println!("{bootstrap}");
                Ok(())
            }
            Found::NotRunning => {
                eprintln!(
                    "error: not running: {}; start it with `cargo workbook kafka start`",
                    description()
                );
                return ExitCode::FAILURE;
            }
        },
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
