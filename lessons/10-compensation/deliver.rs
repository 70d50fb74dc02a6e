//! `cargo workbook deliver 10`: the inventory's events you type or pipe in, one JSON object a
//! line, handed to this crate's `settle_reservation` against the development database. Built
//! as the `deliver` binary of lesson 10's exercise and solution (see their Cargo.toml).

fn main() -> std::process::ExitCode {
    compensation::by_hand::main(compensation::subject!(handler::settle_reservation))
}
