//! `cargo workbook deliver 08`: the announcements you type or pipe in, one JSON object a line,
//! carried through this crate's relay and consumer against the development database. Built as
//! the `deliver` binary of lesson 08's exercise and solution (see their Cargo.toml).

fn main() -> std::process::ExitCode {
    outbox_relay::by_hand::main(outbox_relay::subject!(handler::run))
}
