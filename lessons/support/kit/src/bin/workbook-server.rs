//! `cargo run -p workbook-kit --bin workbook-server`: starts (or finds) the server the tests
//! would use, prints its URL for `psql`, and keeps it until you press Enter. Handy to explore
//! a lesson's tables by hand; the kit's own tests use it to check the cleanup.

use std::io::BufRead;
use std::process::ExitCode;

fn main() -> ExitCode {
    let server = match kit::server() {
        Ok(server) => server,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", server.url);
    eprintln!(
        "psql '{}'   # press Enter here to stop the server",
        server.url
    );
    let _ = std::io::stdin().lock().read_line(&mut String::new());
    ExitCode::SUCCESS
}
