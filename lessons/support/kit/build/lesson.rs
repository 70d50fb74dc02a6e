//! The build script of every lesson on the engine (its `Cargo.toml` says `build =
//! "../support/kit/build/lesson.rs"`): writes the lesson's tests from its list (`tests.list`)
//! and the specs it names, as tests_list.rs describes.

#[path = "tests_list.rs"]
mod tests_list;

use std::path::PathBuf;

fn main() {
    let lesson = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let folder = lesson
        .file_name()
        .expect("a lesson's folder")
        .to_string_lossy();
    println!("cargo:rerun-if-changed=tests.list");
    println!("cargo:rerun-if-changed=specs");
    let listed = tests_list::read(&lesson).unwrap_or_else(|e| panic!("{e}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let code = tests_list::generate(&listed, &format!("lessons/{folder}/tests.list"));
    std::fs::write(out.join("listed.rs"), code).expect("OUT_DIR is writable");
}
