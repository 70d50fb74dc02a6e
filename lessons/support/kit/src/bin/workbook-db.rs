//! `cargo workbook db start|status|stop|url`: the development database (see
//! `kit::dev_database`). The runner runs this binary, so that the runner itself never links a
//! database client.

use std::process::ExitCode;

use kit::dev_database::{DevDatabase, DevServer, DevStatus};

const USAGE: &str = "usage: cargo workbook db start|status|stop|url";

fn main() -> ExitCode {
    let action = std::env::args().nth(1).unwrap_or_default();
    let db = DevDatabase::from_env();
    let result = match action.as_str() {
        "start" => db.start().map(|server| {
            println!(
                "The development database is running: {}.",
                server.description
            );
            print_connect(&server);
        }),
        "status" => db.status().map(|status| match status {
            DevStatus::Running(server) => {
                println!("Running: {}.", server.description);
                print_connect(&server);
            }
            DevStatus::Stopped { data } => {
                println!("The development database is not running.");
                if let Some(data) = data {
                    println!("Its data is kept in {}.", data.display());
                }
                println!("Start it with: cargo workbook db start");
            }
        }),
        "stop" => db.stop().map(|stopped| match stopped {
            Some(server) => println!(
                "Stopped {}. Its data is kept: `cargo workbook db start` brings it back as it \
                 was.",
                server.description
            ),
            None if std::env::var_os("DATABASE_URL").is_some() => println!(
                "DATABASE_URL is set: that server is yours to run, so nothing was stopped."
            ),
            None => println!("The development database was not running."),
        }),
        // For scripts and the book: `psql "$(cargo workbook db url workbook_05)"`.
        "url" => db.running().map(|server| match std::env::args().nth(2) {
            Some(database) => println!("{}", server.url_of(&database)),
            None => println!("{}", server.url),
        }),
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

fn print_connect(server: &DevServer) {
    println!();
    println!("  psql '{}'", server.url);
    println!("  DATABASE_URL='{}'", server.url);
    println!();
    println!(
        "`cargo workbook deliver NN` makes and fills the database workbook_NN (workbook_NN_mine \
         with --mine); then `psql \"$(cargo workbook db url workbook_NN)\"` opens it."
    );
}
