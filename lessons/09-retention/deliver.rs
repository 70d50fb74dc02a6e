//! `cargo workbook deliver 09`: the credits and prunes you type or pipe in, one JSON object a
//! line, against the development database: credits through the given handler, prunes through
//! this crate's `prune`. Built as the `deliver` binary of lesson 09's exercise and solution (see
//! their Cargo.toml).

fn main() -> std::process::ExitCode {
    retention::by_hand::main(retention::subject!(handler::prune))
}
