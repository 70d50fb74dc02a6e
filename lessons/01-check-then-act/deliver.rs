//! `cargo workbook deliver 01`: the events you type or pipe in, one JSON object a line, handed
//! to this crate's `apply_credit` against the development database. Built as the `deliver`
//! binary of lesson 01's exercise and solution (see their Cargo.toml).

fn main() -> std::process::ExitCode {
    check_then_act::by_hand::main(check_then_act::subject!(handler::apply_credit))
}
