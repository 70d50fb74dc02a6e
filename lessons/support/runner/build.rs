//! The runner embeds its copy of the shipped exercises (`include_dir!("…/shipped")`). Cargo
//! rebuilds it when one of the embedded files changes, but not when a folder is added, so a new
//! lesson's copy would be missing from `cargo workbook reset` until something else changed.
//! Watching the whole folder makes Cargo look at every file in it, new ones too.

fn main() {
    println!("cargo:rerun-if-changed=shipped");
}
