//! `cargo run -p workbook-kit --bin workbook-server`: starts (or finds) the server the tests
//! would use, prints its URL for `psql`, and keeps it until you press Enter. Handy to explore
//! a lesson's tables by hand; the kit's own tests use it to check the cleanup.
//!
//! With `--kafka`, the same for the Kafka track's broker: it prints the bootstrap servers.

use std::io::BufRead;
use std::process::ExitCode;

fn main() -> ExitCode {
    let kafka = std::env::args().nth(1).as_deref() == Some("--kafka");
    let found = if kafka {
        kit::broker().map(|broker| {
            let bootstrap = broker.bootstrap.clone();
            let hint = format!("kafka bootstrap servers {bootstrap}");
            (bootstrap, hint)
        })
    } else {
        kit::server().map(|server| (server.url.clone(), format!("psql '{}'", server.url)))
    };
    let (address, hint) = match found {
        Ok(found) => found,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    println!("{address}");
    eprintln!("{hint}   # press Enter here to stop it");
    let _ = std::io::stdin().lock().read_line(&mut String::new());
    ExitCode::SUCCESS
}
