//! Nothing to see: this crate exists for its `Cargo.toml`, which makes every build of the
//! workspace enable the same dependency features (see there).
