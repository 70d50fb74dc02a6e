//! `cargo workbook class DIR`, run for real on a generated class of twelve: copies of this
//! workbook whose students solved a few lessons (the solutions' handlers), then wrote one of
//! the wrong fixes the catalogue keeps (`lessons/NN-key/wrong-fixes/*.patch`, applied as
//! verify applies them), plus one whose exercise does not compile, one whose handler loops,
//! one who edited a test file, and one unpacked from an archive on Windows (CR LF endings).
//! The report must say of each what its handler did, and the suites' reasons must be the
//! patches' own `expect:` kinds.
//!
//! It builds the class's own target directory (several minutes the first time), so it is
//! ignored in the root `cargo test`; CI runs it (`cargo test -p workbook-runner --test
//! class_report -- --ignored`). Bad input, which builds nothing, is tested in every run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workbook() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// `cargo workbook class ARGS…`, from the workbook's root.
fn class(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_workbook"))
        .arg("class")
        .args(args)
        .current_dir(workbook())
        .env("CARGO", env!("CARGO"))
        .output()
        .unwrap()
}

fn report() -> PathBuf {
    workbook().join("target/workbook/class/report.csv")
}

fn written_at(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

#[test]
fn bad_input_is_refused_in_words_and_writes_nothing() {
    let before = written_at(&report());
    let empty = tempfile::tempdir().unwrap();
    let refused = |args: &[&str], says: &str| {
        let output = class(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(says), "expected {says:?} in:\n{stderr}");
        assert!(output.stdout.is_empty());
    };
    let dir = empty.path().to_str().unwrap();
    refused(&[dir], "holds no checkouts");
    refused(
        &[&format!("{dir}/nowhere")],
        "could not read the class folder",
    );

    std::fs::create_dir_all(empty.path().join("other/src")).unwrap();
    std::fs::write(empty.path().join("other/Cargo.toml"), "[workspace]\n").unwrap();
    std::fs::write(empty.path().join("zoe.zip"), "PK").unwrap();
    refused(&[dir], "other is a folder, but not this workbook");
    refused(&[dir], "zoe.zip is an archive");
    assert_eq!(
        written_at(&report()),
        before,
        "a refused class wrote a report"
    );
}

/// The workbook's files as a student's checkout holds them: no build, no history.
fn copy_workbook(to: &Path) {
    fn walk(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap().flatten() {
            let name = entry.file_name();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                if name != "target" && name != ".git" && !path.ends_with("book/book") {
                    walk(&path, &to.join(&name));
                }
            } else {
                std::fs::copy(&path, to.join(&name)).unwrap();
            }
        }
    }
    walk(&workbook(), to);
}

/// The lesson folder that starts with `number`.
fn folder(number: &str) -> String {
    std::fs::read_dir(workbook().join("exercises"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|name| name.starts_with(number))
        .unwrap()
}

/// A student's exercise made the solution's handler and migrations.
fn solve(student: &Path, number: &str) {
    let folder = folder(number);
    for part in ["src", "migrations"] {
        let theirs = student.join("exercises").join(&folder).join(part);
        let _ = std::fs::remove_dir_all(&theirs);
        copy_tree(
            &workbook().join("solutions").join(&folder).join(part),
            &theirs,
        );
    }
}

fn copy_tree(from: &Path, to: &Path) {
    if !from.exists() {
        return;
    }
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// Applies the catalogue's wrong fix `name` of lesson `number` to the student's exercise (on
/// the solution's handler or the shipped one, as its `base:` says); returns the kinds its
/// `expect:` line names.
fn write_wrong_fix(student: &Path, number: &str, name: &str) -> Vec<String> {
    let folder = folder(number);
    let patch = workbook().join(format!("lessons/{folder}/wrong-fixes/{name}.patch"));
    let text = std::fs::read_to_string(&patch).unwrap();
    let field = |key: &str| {
        (text.lines())
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
            .unwrap()
            .trim()
            .to_string()
    };
    if field("base") == "solution" {
        solve(student, number);
    }
    let diff = &text[text.find("--- ").unwrap()..];
    let target = (diff.lines())
        .find_map(|l| l.strip_prefix("+++ b/"))
        .unwrap()
        .split('\t')
        .next()
        .unwrap()
        .trim();
    let file = student.join("exercises").join(&folder).join(target);
    let original = std::fs::read_to_string(&file).unwrap();
    let parsed = diffy::Patch::from_str(diff).unwrap();
    std::fs::write(&file, diffy::apply(&original, &parsed).unwrap()).unwrap();
    let expect = field("expect");
    let kinds = expect.split_whitespace().nth(1).unwrap();
    kinds.split('|').map(str::to_string).collect()
}

/// Rewrites the student's handler of lesson `number`: `edit` gets it as shipped.
fn edit_handler(student: &Path, number: &str, edit: impl Fn(&str) -> String) {
    let handler = student
        .join("exercises")
        .join(folder(number))
        .join("src/lib.rs");
    let shipped = std::fs::read_to_string(&handler).unwrap();
    let edited = edit(&shipped);
    assert_ne!(
        edited, shipped,
        "the handler moved: this test needs updating"
    );
    std::fs::write(handler, edited).unwrap();
}

/// What the class is expected to show, per student and lesson: the outcome, and for a lesson
/// not yet solved, the kinds (any one of them will do, as with a wrong fix's `expect:`).
type Expected = BTreeMap<(String, String), (&'static str, Vec<String>)>;

/// A student who solved the lessons `solved` and wrote `wrong`, a wrong fix (lesson, name).
fn student(
    class: &Path,
    expected: &mut Expected,
    name: &str,
    solved: &[&str],
    wrong: Option<(&str, &str)>,
) -> PathBuf {
    let root = class.join(name);
    copy_workbook(&root);
    for number in solved {
        solve(&root, number);
        expected.insert((name.into(), (*number).into()), ("solved", vec![]));
    }
    if let Some((number, fix)) = wrong {
        let kinds = write_wrong_fix(&root, number, fix);
        expected.insert((name.into(), number.into()), ("not yet", kinds));
    }
    root
}

fn generate(class: &Path) -> Expected {
    let _ = std::fs::remove_dir_all(class);
    let mut expected = Expected::new();
    let e = &mut expected;
    // Ahead of the class: ten lessons solved (the Kafka track's lessons on their default
    // tests, lesson 09's clock, lesson 10's compensation), and the HTTP lesson half done.
    let ten = ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10"];
    student(class, e, "ada", &ten, Some(("11", "replay-as-created")));
    student(class, e, "ben", &["01"], Some(("02", "upsert-do-update")));
    student(
        class,
        e,
        "cleo",
        &[],
        Some(("01", "key-but-handler-unchanged")),
    );
    student(
        class,
        e,
        "dev",
        &[],
        Some(("01", "any-failed-insert-is-a-duplicate")),
    );
    student(class, e, "eli", &[], Some(("01", "catch-every-error")));
    // The same wrong fix as dev's: the report runs it once.
    student(
        class,
        e,
        "fay",
        &[],
        Some(("01", "any-failed-insert-is-a-duplicate")),
    );
    student(
        class,
        e,
        "gus",
        &["01", "02"],
        Some(("03", "two-transactions")),
    );
    student(
        class,
        e,
        "kai",
        &["01", "02", "03", "04", "05"],
        Some(("06", "key-from-the-clock")),
    );

    // An exercise that does not compile.
    let hana = student(class, e, "hana", &["01"], None);
    edit_handler(&hana, "02", |shipped| {
        format!("{shipped}\nfn unfinished() -> u32 {{ \"not a number\" }}\n")
    });
    e.insert(("hana".into(), "02".into()), ("does not compile", vec![]));

    // A handler that loops: its first test is stopped at the deadline.
    let ivan = student(class, e, "ivan", &[], None);
    edit_handler(&ivan, "01", |shipped| {
        shipped.replacen(
            "-> Result<Outcome, sqlx::Error> {",
            "-> Result<Outcome, sqlx::Error> {\n    loop {\n        std::hint::spin_loop();\n    }",
            1,
        )
    });
    e.insert(
        ("ivan".into(), "01".into()),
        ("stopped at its deadline", vec![]),
    );

    // A test file made to pass: not run.
    let jo = student(class, e, "jo", &["01"], None);
    let tests = jo
        .join("lessons")
        .join(folder("01"))
        .join("exercise-tests.rs");
    let text = std::fs::read_to_string(&tests).unwrap();
    std::fs::write(&tests, format!("// made to pass\n{text}")).unwrap();
    for number in ["01", "02"] {
        e.insert(("jo".into(), number.into()), ("not run", vec![]));
    }

    // An archive unpacked on Windows: one folder inside, CR LF endings, the same wrong fix
    // as eli's.
    let unpacked = class.join("lea/idempotency-workbook-main");
    copy_workbook(&unpacked);
    let readme = unpacked.join("README.md");
    let text = std::fs::read_to_string(&readme).unwrap();
    std::fs::write(&readme, text.replace('\n', "\r\n")).unwrap();
    let kinds = write_wrong_fix(&unpacked, "01", "catch-every-error");
    e.insert(("lea".into(), "01".into()), ("not yet", kinds));
    e.insert(("lea".into(), "02".into()), ("not started", vec![]));
    expected
}

#[test]
#[ignore = "builds the class's own target directory: CI runs it"]
fn a_generated_class_of_twelve_is_reported_each_for_what_its_handlers_do() {
    let class_dir = workbook().join("target/workbook/class-fixture");
    let expected = generate(&class_dir);
    let output = class(&[class_dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");

    let mut table = csv::Reader::from_path(report()).unwrap();
    let mut found: BTreeMap<(String, String), (String, String, String)> = BTreeMap::new();
    for line in table.records() {
        let line = line.unwrap();
        let key = (line[0].to_string(), line[1].to_string());
        found.insert(
            key,
            (
                line[2].to_string(),
                line[3].to_string(),
                line[5].to_string(),
            ),
        );
    }
    let students: std::collections::BTreeSet<&str> = found.keys().map(|k| k.0.as_str()).collect();
    assert_eq!(students.len(), 12, "{students:?}");
    for ((student, lesson), (outcome, kinds)) in &expected {
        let (said, said_kinds, detail) = &found[&(student.clone(), lesson.clone())];
        assert_eq!(
            said, outcome,
            "{student}, lesson {lesson}: {said_kinds} {detail}\n{stderr}"
        );
        assert!(
            kinds.is_empty() || kinds.iter().any(|k| said_kinds.contains(k.as_str())),
            "{student}, lesson {lesson}: expected one of {kinds:?}, the report says {said_kinds}"
        );
    }
    let (_, _, jo) = &found[&("jo".to_string(), "01".to_string())];
    assert!(jo.contains("exercise-tests.rs (changed)"), "{jo}");
    // Every lesson nobody touched is "not started", never run.
    assert_eq!(
        found[&("ada".to_string(), "13".to_string())].0,
        "not started"
    );

    let page = std::fs::read_to_string(report().with_extension("html")).unwrap();
    for student in students {
        assert!(
            page.contains(&format!(">{student}<")),
            "{student} is not on the page"
        );
    }

    // Trusted, jo's checkout runs as it is, its own test file included. Then jo goes back,
    // so that the class is whole for whoever runs the report on it by hand.
    let trusted = workbook().join("target/workbook/class-fixture-trusted");
    let _ = std::fs::remove_dir_all(&trusted);
    std::fs::create_dir_all(&trusted).unwrap();
    std::fs::rename(class_dir.join("jo"), trusted.join("jo")).unwrap();
    let output = class(&["--trust", trusted.to_str().unwrap()]);
    std::fs::rename(trusted.join("jo"), class_dir.join("jo")).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("jo (1 of 1): run (--trust) though it changed"),
        "{stderr}"
    );
    let table = std::fs::read_to_string(report()).unwrap();
    assert!(table.contains("jo,01,solved,"), "{table}");
}
