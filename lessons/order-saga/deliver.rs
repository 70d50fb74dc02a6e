//! `cargo workbook deliver NN`: the events you type or pipe in, one JSON object a line, handed
//! to this crate's `apply_payment_result` against the development database. Built as the
//! `deliver` binary of every saga exercise and solution (see their Cargo.toml).

fn main() -> std::process::ExitCode {
    order_saga::by_hand::main(order_saga::subject!(handler::apply_payment_result))
}
