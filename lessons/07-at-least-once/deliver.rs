//! `cargo workbook deliver 07`: the events you type or pipe in, one JSON object a line: orders
//! are placed, verdicts appended to the log and consumed by this crate's `poll`, against the
//! development database. Built as the `deliver` binary of lesson 07's exercise and solution.

fn main() -> std::process::ExitCode {
    at_least_once::by_hand::main(at_least_once::subject!(handler::poll))
}
