//! `cargo workbook serve 12`: lesson 11's payment API in front of this crate's `create_payment`,
//! which charges at the provider, on 127.0.0.1, against the development database, until Ctrl-C.
//! Built as the `serve` binary of lesson 12's exercise and solution (see their Cargo.toml).

fn main() -> std::process::ExitCode {
    atomic_phases::by_hand::serve(atomic_phases::subject!(handler))
}
