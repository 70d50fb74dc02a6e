//! `cargo workbook serve 11`: the payment API in front of this crate's `create_payment`, on
//! 127.0.0.1, against the development database, until Ctrl-C. Built as the `serve` binary of
//! lesson 11's exercise and solution (see their Cargo.toml).

fn main() -> std::process::ExitCode {
    http_keys::serve::main(http_keys::subject!(handler::create_payment))
}
