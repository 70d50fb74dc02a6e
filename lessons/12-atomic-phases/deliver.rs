//! `cargo workbook deliver 12`: payment requests you type or pipe in, one JSON object a line,
//! sent over HTTP to lesson 11's API in front of this crate's `create_payment`, which charges at
//! the provider, against the development database. Built as the `deliver` binary of lesson 12's
//! exercise and solution (see their Cargo.toml).

fn main() -> std::process::ExitCode {
    atomic_phases::by_hand::main(atomic_phases::subject!(handler))
}
