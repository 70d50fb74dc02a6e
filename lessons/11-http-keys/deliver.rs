//! `cargo workbook deliver 11`: payment requests you type or pipe in, one JSON object a line,
//! sent over HTTP to the payment API in front of this crate's `create_payment`, against the
//! development database. Built as the `deliver` binary of lesson 11's exercise and solution
//! (see their Cargo.toml).

fn main() -> std::process::ExitCode {
    http_keys::by_hand::main(http_keys::subject!(handler::create_payment))
}
