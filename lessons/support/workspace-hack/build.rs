// Empty: its presence makes cargo resolve the `[build-dependencies]`, which are what align the
// features of crates built for the host.
fn main() {}
