//! `cargo workbook deliver 13`: authorizations you type or pipe in, one JSON object a
//! line, handed to this crate's `authorize` against the development database. Built
//! as the `deliver` binary of lesson 13's exercise and solution (see their Cargo.toml).

fn main() -> std::process::ExitCode {
    serializable_retry::by_hand::main(serializable_retry::subject!(handler::authorize))
}
