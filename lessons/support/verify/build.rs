//! Every lesson's wrong fixes (`lessons/NN-key/wrong-fixes/*.patch`) are applied here to the file
//! each names, and the patched handlers are compiled into this crate: each can then run the
//! lesson's whole suite in-process, in a fraction of a second, with no cargo run of its own.
//!
//! A `.patch` file is a few header lines, then a unified diff:
//!
//! ```text
//! story: a student who wanted the upsert to "always return a row"
//! base: solution
//! expect: caught ResolvedTwice "applied more than once"
//! --- a/src/lib.rs
//! +++ b/src/lib.rs
//! @@ … @@
//! ```
//!
//! `base` is `solution` or `exercise`: the crate whose `src/lib.rs` (or migration, for lesson 01)
//! the diff patches; `expect` is `equivalent` (a
//! different but correct fix: it must pass everything) or `caught <Kind>[|<Kind>…] "<words>"…`
//! (every failing scenario fails with one of those kinds of violation, and its message contains
//! the words). Two optional lines: `caught-by: TEST`, the test that catches it (the quick sweep
//! plays only that one), and `fails: TEST TEST …`, every test it fails, for the book to count
//! (the full sweep holds the list to what the suite did).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.join("../../..");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let lessons = root.join("lessons");
    println!("cargo:rerun-if-changed={}", lessons.display());
    // Where the patched handlers are written, for workbook-measure's build script.
    println!("cargo::metadata=dir={}", out.display());
    // An exercise's lib.rs may declare its Kafka track (`#[cfg(feature = "kafka")] mod kafka;`,
    // lesson 07): compiled in here, it names a feature this crate never has, so the track is
    // left out, as `cargo test` leaves it out of the exercise itself.
    println!("cargo::rustc-check-cfg=cfg(feature, values(\"kafka\"))");

    let mut checks = String::new();
    let mut listed = String::new();
    let mut modules = String::new();
    let mut entries = String::new();
    let mut tests = String::new();
    for lesson_dir in sorted_dirs(&lessons) {
        let folder = lesson_dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let Some(number) = folder
            .get(..2)
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let checks_file = lesson_dir.join("checks.rs");
        if checks_file.is_file() {
            writeln!(
                checks,
                "/// Lesson {number}'s checks: `lessons/{folder}/checks.rs`.\n\
                 #[path = {:?}]\npub mod lesson_{number};",
                checks_file.display().to_string()
            )
            .unwrap();
            writeln!(listed, "    lesson_{number}::LESSON,").unwrap();
            // The solution against the lesson's whole suite, every round: what its own test
            // binary runs, played here with the other lessons' instead of in a binary of its own.
            writeln!(
                checks,
                "/// Lesson {number}'s solution passes every test of \
                 `lessons/{folder}/exercise-tests.rs`, every round.\n\
                 #[cfg(test)]\n\
                 #[tokio::test(flavor = \"multi_thread\", worker_threads = 2)]\n\
                 async fn lesson_{number}_solution_passes_every_test() -> Result<(), \
                 crate::intended::Complaint> {{\n    \
                 crate::intended::passes_every_test(lesson_{number}::tests(), |test| {{\n        \
                 lesson_{number}::play(test, lesson_{number}::solution())\n    }})\n    .await\n}}"
            )
            .unwrap();
            // The exercise and the solution, compiled into the checks from their own source: a
            // new lesson needs no dependency line here. The exercise is the runner's copy of it
            // as shipped, not exercises/, which a student edits: the root suite stays green (and
            // compiles) while a student works, and verify checks the two are the same.
            let exercise = exercise_source(&root, &folder);
            let solution = SOLUTION_DIR.replace("{folder}", &folder);
            for (side, dir) in [("exercise", &exercise), ("solution", &solution)] {
                let lib = root.join(dir).join("src/lib.rs");
                println!("cargo:rerun-if-changed={}", lib.display());
                writeln!(
                    checks,
                    "/// Lesson {number}'s {side}: `{dir}/src/lib.rs`.\n\
                     #[path = {:?}]\npub mod {side}_{number};\n\
                     /// Its crate's folder, for its migrations.\n\
                     pub const {}_{number}_DIR: &str = {:?};",
                    lib.display().to_string(),
                    side.to_uppercase(),
                    root.join(dir).display().to_string(),
                )
                .unwrap();
            }
            // The lesson's one list of scenarios, its students' tests, as checks.rs runs them:
            // its contract's (`kit::Lesson`, listed when the tests run).
            let (domain, lesson) = contract(&lessons, &lesson_dir, number);
            let shipped = format!("kit::contract::shipped::<{lesson}>()");
            let spec_test = format!("kit::contract::spec_test::<{lesson}, _>");
            specs_check(&mut checks, number, &shipped, &spec_test);
            let generated = harness_tests(&domain, &lesson);
            std::fs::write(out.join(format!("exercise_tests_{number}.rs")), generated).unwrap();
        }
        let patches: Vec<PathBuf> = sorted_files(&lesson_dir.join("wrong-fixes"), "patch");
        if patches.is_empty() {
            continue;
        }
        writeln!(modules, "pub mod lesson_{number} {{").unwrap();
        for patch in patches {
            let name = patch
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .replace('-', "_");
            let entry = Entry::read(
                &patch,
                &root,
                &folder,
                &out.join(format!("wrong_fix_{number}_{name}")),
            );
            let written = out.join(format!("wrong_fix_{number}_{name}.rs"));
            std::fs::write(&written, &entry.handler).unwrap();
            writeln!(
                modules,
                "    // A fixture: whatever a student's wrong fix leaves unused or unidiomatic stays.\n    \
                 #[allow(warnings, clippy::all)]\n    #[path = {:?}]\n    pub mod {name};",
                written.display().to_string()
            )
            .unwrap();
            let handler = handler_name(&entry.handler, &patch);
            // The handler the suite plays: the patched function, or, for a lesson whose crate has
            // a completer too (12), both functions, as that lesson's `Handlers`.
            let call = |function: &str| {
                format!(
                    "|pool: ::sqlx::PgPool, event| async move {{ \
                     lesson_{number}::{name}::{function}(&pool, &event).await }}"
                )
            };
            let handler = match entry.handler.contains("pub async fn complete(") {
                true => format!(
                    "{}::Handlers {{\n                pay: {},\n                complete: {},\n            }}",
                    lib_name(&lesson_dir),
                    call(&handler),
                    call("complete")
                ),
                false => call(&handler),
            };
            writeln!(
                entries,
                "    WrongFix {{ lesson: {number:?}, name: {:?}, file: {:?}, story: {:?}, \
                 expect: {} }},",
                patch.file_stem().unwrap().to_string_lossy(),
                format!(
                    "lessons/{folder}/wrong-fixes/{}",
                    patch.file_name().unwrap().to_string_lossy()
                ),
                entry.story,
                entry.expect,
            )
            .unwrap();
            writeln!(
                tests,
                "#[tokio::test(flavor = \"multi_thread\", worker_threads = 2)]\n\
                 async fn lesson_{number}_{name}() -> Result<(), verify::wrong_fix::Complaint> {{\n    \
                 verify::wrong_fix::check(\n        \
                 verify::wrong_fixes::by_name({number:?}, {:?}),\n        \
                 || Box::pin(verify::lesson_{number}::suite(\n            \
                 {handler},\n            \
                 {:?},\n        )),\n        \
                 verify::wrong_fix::Sweep::from_env(),\n    )\n    .await\n}}",
                patch.file_stem().unwrap().to_string_lossy(),
                entry.migrations.display().to_string(),
            )
            .unwrap();
        }
        writeln!(modules, "}}").unwrap();
    }
    // Every lesson's checks, found by their file: a new lesson is checked without a line here.
    let lessons = format!(
        "// Generated by build.rs from lessons/*/checks.rs: do not edit.\n\
         {checks}\n\
         /// Every lesson with checks, in the catalog's order (folders sort by number).\n\
         pub const LESSONS: &[Lesson] = &[\n{listed}];\n"
    );
    std::fs::write(out.join("lessons.rs"), lessons).unwrap();
    // The catalogue, for the library (the book's tables, the checks' counts); the patched
    // handlers and a test for each, for tests/wrong_fixes.rs alone: compiled once, in that test
    // binary, rather than twice (the library and its unit tests), which was a fifth of a build.
    let catalogue = format!(
        "// Generated by build.rs from lessons/*/wrong-fixes/*.patch: do not edit.\n\
         use crate::wrong_fix::{{Expect, WrongFix}};\n\n\
         /// Every lesson's wrong fixes, in lesson and file order.\n\
         pub static WRONG_FIXES: &[WrongFix] = &[\n{entries}];\n"
    );
    std::fs::write(out.join("wrong_fixes.rs"), catalogue).unwrap();
    let tests = format!(
        "// Generated by build.rs from lessons/*/wrong-fixes/*.patch: do not edit.\n\
         {modules}\n{tests}"
    );
    std::fs::write(out.join("wrong_fix_tests.rs"), tests).unwrap();
}

/// The runner's copy of the exercises as shipped (what `cargo workbook reset` restores).
const SHIPPED: &str = "lessons/support/runner/shipped";

/// The solution's folder, from the workspace root (`{folder}`: the lesson's).
const SOLUTION_DIR: &str = "solutions/{folder}";

/// Where the exercise compiled into the checks comes from: the shipped copy, or, with the
/// `working-copy` feature (which only `cargo repeat` asks for), exercises/ as it is now.
/// A test that each shipped spec's `expect` lines hold, against both sides.
/// (`shipped`: the lesson's shipped specs; `spec_test`: what plays one of them.)
fn specs_check(checks: &mut String, number: &str, shipped: &str, spec_test: &str) {
    writeln!(
        checks,
        "/// Lesson {number}'s specs show what their `expect` lines say. On two worker threads, as\n\
         /// `cargo test` plays a spec's `barrier`: its workers race for real only there.\n\
         #[cfg(test)]\n\
         #[tokio::test(flavor = \"multi_thread\", worker_threads = 2)]\n\
         async fn lesson_{number}_specs_show_what_they_expect() -> Result<(), \
         crate::intended::Complaint> {{\n    \
         let specs = lesson_{number}::specs();\n    \
         crate::intended::specs_show_what_they_expect({shipped}, specs, |name, test, side| async move {{\n        \
         match side {{\n            \
         kit::spec::Side::Exercise => {spec_test}(lesson_{number}::exercise(), name, test).await,\n            \
         kit::spec::Side::Solution => {spec_test}(lesson_{number}::solution(), name, test).await,\n        \
         }}\n    }})\n    .await\n}}"
    )
    .unwrap();
}

/// For a lesson on the kit's contract: its list, as the data checks.rs reads. Its tests play
/// whatever handler of the lesson's events `checks.rs` hands them (the student's, or lesson 11's
/// API in front of it).
fn harness_tests(domain: &str, lesson: &str) -> String {
    let tested = format!(
        "kit::Handler<<{lesson} as kit::Lesson>::Event, Output = <{lesson} as kit::Lesson>::Output>"
    );
    format!(
        "// Generated by verify's build.rs: the lesson's tests, from its contract's list.\n\n\
         static LISTED: std::sync::LazyLock<&kit::harness::Listed> =\n    \
         std::sync::LazyLock::new(kit::contract::listed::<{lesson}>);\n\n\
         /// Plays the test `name` against `subject`, as `cargo test` does.\n\
         pub async fn play_unrecorded<H: {tested}>(\n    name: &'static str,\n    \
         subject: {domain}::Subject<H>,\n) -> Result<(), {domain}::Violation> {{\n    \
         kit::contract::play::<{lesson}, H>(name, subject).await\n}}\n\n\
         /// Every test, by the name `cargo test` prints.\n\
         pub fn tests() -> &'static [&'static str] {{\n    &LISTED.names\n}}\n\n\
         /// Each case of a test with cases, by its name, and its value as written.\n\
         pub fn cases() -> &'static [(&'static str, &'static str)] {{\n    &LISTED.cases\n}}\n\n\
         /// The races and faults the shipped exercise loses, which `cargo repeat` counts.\n\
         pub fn repeat() -> &'static [&'static str] {{\n    &LISTED.repeat\n}}\n\n\
         /// The shipped permutations the lesson plays: each spec's file, and its test.\n\
         pub fn specs() -> &'static [(&'static str, &'static str)] {{\n    &LISTED.specs\n}}\n\n\
         /// The shipped permutation the test `name` plays: its spec's file, and the test its\n\
         /// `test` line names (another, where the lesson picks it under a name of its own).\n\
         pub fn spec_of(name: &str) -> Option<(&'static str, &'static str)> {{\n    \
         LISTED.tests.iter().find(|t| t.name == name)?.spec\n}}\n\n\
         /// The rounds a released permutation plays, as its spec says.\n\
         pub fn rounds_listed(test: &str) -> Option<usize> {{\n    LISTED.rounds(test)\n}}\n\n{}",
        plays(domain, &tested)
    )
}

/// `play` (recording statements) and `play_on` (a side), over the lesson's `play_unrecorded`,
/// for handlers that are `tested`.
fn plays(domain: &str, tested: &str) -> String {
    format!(
        "/// Plays the test `name` against `subject`, its scripted scenarios recording their\n\
         /// statements (the checks snapshot them beside the traces, for the book).\n\
         pub async fn play<H: {tested}>(\n    name: &'static str,\n    \
         subject: {domain}::Subject<H>,\n) -> Result<(), {domain}::Violation> {{\n    \
         kit::recorded(play_unrecorded(name, subject)).await\n}}\n\n\
         /// Plays the test `name` against the shipped exercise or the solution (`exercise()`,\n\
         /// `solution()` of `checks.rs`), as `cargo repeat` asks.\n\
         pub async fn play_on(\n    name: &'static str,\n    side: crate::probe::Side,\n\
         ) -> Result<(), {domain}::Violation> {{\n    match side {{\n        \
         crate::probe::Side::Exercise => play_unrecorded(name, exercise()).await,\n        \
         crate::probe::Side::Solution => play_unrecorded(name, solution()).await,\n    }}\n}}\n"
    )
}

/// The crate whose contract a lesson is, and the lesson's type in it: its own crate's `Lesson`,
/// or, for a lesson that shares a crate with others (its `lesson.toml` names the `domain`, as
/// lessons 02 to 05 name the order saga), that crate's `Lesson<N>`.
fn contract(lessons: &Path, lesson_dir: &Path, number: &str) -> (String, String) {
    if lesson_dir.join("Cargo.toml").is_file() {
        let domain = lib_name(lesson_dir);
        return (domain.clone(), format!("{domain}::Lesson"));
    }
    let toml = std::fs::read_to_string(lesson_dir.join("lesson.toml")).unwrap();
    let shared = (toml.lines())
        .find_map(|line| line.trim().strip_prefix("domain = "))
        .map(|name| name.trim_matches('"').to_string())
        .unwrap_or_else(|| panic!("{}: no crate and no domain", lesson_dir.display()));
    let domain = lib_name(&lessons.join(shared));
    let n: u8 = number.parse().unwrap();
    (domain.clone(), format!("{domain}::Lesson<{n}>"))
}

/// The lesson crate's library name, from its `Cargo.toml`'s `[lib]`.
fn lib_name(lesson_dir: &Path) -> String {
    let manifest = std::fs::read_to_string(lesson_dir.join("Cargo.toml")).unwrap();
    (manifest.split("[lib]").nth(1))
        .and_then(|lib| {
            lib.lines()
                .find_map(|line| line.trim().strip_prefix("name = "))
        })
        .map(|name| name.trim_matches('"').to_string())
        .unwrap_or_else(|| panic!("{}: no [lib] name", lesson_dir.display()))
}

fn exercise_source(root: &Path, folder: &str) -> String {
    let working = std::env::var_os("CARGO_FEATURE_WORKING_COPY").is_some();
    let dir = if working {
        format!("exercises/{folder}")
    } else {
        format!("{SHIPPED}/{folder}")
    };
    let lib = root.join(&dir).join("src");
    println!("cargo:rerun-if-changed={}", lib.display());
    dir
}

struct Entry {
    story: String,
    expect: String,
    /// The handler's source: patched, or the base crate's own when the patch is to a migration.
    handler: String,
    /// The crate's migrations: a patched copy when the patch is to one of them.
    migrations: PathBuf,
}

impl Entry {
    /// `scratch`: where a patched copy of the crate's migrations goes, when the patch is to one.
    fn read(patch: &Path, root: &Path, folder: &str, scratch: &Path) -> Entry {
        let text = std::fs::read_to_string(patch).unwrap();
        let fail = |why: String| -> ! { panic!("{}: {why}", patch.display()) };
        let (header, diff) = match text.find("\n--- ") {
            Some(at) => (&text[..at], &text[at + 1..]),
            None => fail("no unified diff (a line starting with `--- `) after the header".into()),
        };
        let optional = |key: &str| {
            header
                .lines()
                .find_map(|line| line.strip_prefix(key)?.strip_prefix(':'))
                .map(|value| value.trim().to_string())
        };
        let field = |key: &str| {
            optional(key).unwrap_or_else(|| fail(format!("the header has no `{key}:` line")))
        };
        let crate_dir = match field("base").as_str() {
            "solution" => root.join("solutions").join(folder),
            // The exercise as shipped (the runner's copy): a student's edits never reach the
            // catalogue.
            "exercise" => root.join(SHIPPED).join(folder),
            other => fail(format!("base is {other:?}: use solution or exercise")),
        };
        // The file the diff patches, from its `+++ b/<path>` line.
        let target = diff
            .lines()
            .find_map(|line| line.strip_prefix("+++ b/"))
            .map(|path| path.split('\t').next().unwrap_or(path).trim().to_string())
            .unwrap_or_else(|| fail("the diff has no `+++ b/<path>` line".into()));
        let base = crate_dir.join(&target);
        println!("cargo:rerun-if-changed={}", base.display());
        let original = std::fs::read_to_string(&base)
            .unwrap_or_else(|e| fail(format!("cannot read {}: {e}", base.display())));
        let parsed = diffy::Patch::from_str(diff)
            .unwrap_or_else(|e| fail(format!("not a unified diff: {e}")));
        let patched = diffy::apply(&original, &parsed).unwrap_or_else(|e| {
            fail(format!(
                "does not apply to {} any more ({e}): update the patch",
                base.display()
            ))
        });
        let (handler, migrations) = if target == "src/lib.rs" {
            (patched, crate_dir.join("migrations"))
        } else if let Some(file) = target.strip_prefix("migrations/") {
            let copy = scratch.with_extension("migrations");
            let _ = std::fs::remove_dir_all(&copy);
            std::fs::create_dir_all(&copy).unwrap();
            for entry in std::fs::read_dir(crate_dir.join("migrations"))
                .unwrap()
                .flatten()
            {
                std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
            }
            std::fs::write(copy.join(file), patched).unwrap();
            let handler = std::fs::read_to_string(crate_dir.join("src/lib.rs")).unwrap();
            (handler, copy)
        } else {
            fail(format!(
                "patches {target}: only src/lib.rs or a file in migrations/"
            ))
        };
        let by = optional("caught-by");
        let fails: Option<Vec<String>> =
            optional("fails").map(|list| list.split_whitespace().map(str::to_string).collect());
        // The lesson's tests are listed when they run: the suite checks that `caught-by:` and
        // `fails:` name them there (`wrong_fix::run_tests`).
        Entry {
            story: field("story"),
            expect: expectation(&field("expect"), by.as_deref(), fails.as_deref())
                .unwrap_or_else(|e| fail(e)),
            handler,
            migrations,
        }
    }
}

/// `equivalent`, or `caught Kind|OtherKind "words" "more words"` (caught by the test `by`, and
/// failing the tests `fails`, if the header names them), as Rust.
fn expectation(text: &str, by: Option<&str>, fails: Option<&[String]>) -> Result<String, String> {
    if text == "equivalent" {
        if by.is_some() || fails.is_some() {
            return Err(
                "a correct fix (`equivalent`) fails nothing: drop `caught-by:` and `fails:`".into(),
            );
        }
        return Ok("Expect::Equivalent".into());
    }
    let rest = text.strip_prefix("caught ").ok_or_else(|| {
        format!("expect is {text:?}: use `equivalent` or `caught Kind \"words\"`")
    })?;
    let (kinds, words) = rest.split_once(' ').unwrap_or((rest, ""));
    let kinds: Vec<&str> = kinds.split('|').collect();
    let words: Vec<&str> = words
        .split('"')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, w)| w)
        .collect();
    let fails = match fails {
        Some(tests) => format!("Some(&{tests:?})"),
        None => "None".into(),
    };
    Ok(format!(
        "Expect::Caught {{ kinds: &{kinds:?}, words: &{words:?}, by: {by:?}, fails: {fails} }}"
    ))
}

/// The first `pub async fn` of the patched file: the handler the lesson's suite runs.
fn handler_name(source: &str, patch: &Path) -> String {
    source
        .lines()
        .find_map(|line| line.trim_start().strip_prefix("pub async fn "))
        .and_then(|rest| rest.split('(').next())
        .map(str::to_string)
        .unwrap_or_else(|| {
            panic!(
                "{}: the patched file has no `pub async fn`",
                patch.display()
            )
        })
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn sorted_files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}
