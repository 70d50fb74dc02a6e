//! `cargo workbook deliver 06`: the order.created events you type or pipe in, one JSON object
//! a line, handed to this crate's `take_payment` against the development database. Built as
//! the `deliver` binary of lesson 06's exercise and solution (see their Cargo.toml).

fn main() -> std::process::ExitCode {
    deterministic_ids::by_hand::main(deterministic_ids::subject!(handler::take_payment))
}
