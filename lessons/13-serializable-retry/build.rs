//! Writes the lesson's tests from its list (`tests.list`) and the specs it names: see
//! lessons/support/kit/build/tests_list.rs.

#[path = "../support/kit/build/tests_list.rs"]
mod tests_list;

fn main() {
    let lesson = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed=tests.list");
    println!("cargo:rerun-if-changed=specs");
    let listed = tests_list::read(lesson).unwrap_or_else(|e| panic!("{e}"));
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let code = tests_list::generate(&listed, "lessons/13-serializable-retry/tests.list");
    std::fs::write(out.join("listed.rs"), code).expect("OUT_DIR is writable");
}
