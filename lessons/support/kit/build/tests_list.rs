//! A lesson's list of tests, read by build scripts (the lesson's own, which writes the tests,
//! and verify's, which checks the wrong fixes' `caught-by:` against their names): its
//! `tests.list`, and the `test` lines of the specs it names. Plain std, so that a build script
//! can include it by path without building the kit for the host.
//!
//! ```text
//! # comments, and blank lines
//! crate order-saga                       the lesson's tests are played by lessons/order-saga
//! spec forced.spec                       every permutation of specs/forced.spec with a `test` line
//! spec forced.spec TEST [as NAME] [repeat]   one of them, under a name of this lesson's
//! spec failed.spec as NAME [repeat] cases CASE=TEST …   one test, a case per permutation
//! rust NAME FUNCTION [repeat] [multi_thread] [cases PARAMETER: TYPE CASE=VALUE …]
//! ```
//!
//! `crate` is for lessons that share one crate (02 to 05 share the order saga): their lists live
//! in their own folders, the specs and scenarios in the crate's, and each list picks the
//! permutations its lesson runs, since their guards differ. A spec's test is repeated by `cargo
//! repeat` when its permutation expects the shipped exercise to fail (`expect exercise KIND`):
//! that is a race the exercise loses. A shared spec cannot say that for every lesson, so a
//! list's `repeat` says it for its own; a test written in Rust says so the same way.

#![allow(dead_code)]

use std::path::Path;

/// One test of the list.
pub struct Listed {
    pub name: String,
    pub plays: Plays,
    pub repeat: bool,
    pub multi_thread: bool,
    pub cases: Option<Cases>,
}

pub enum Plays {
    /// A permutation of `specs/FILE`: the one whose `test` line says `test`.
    Spec { file: String, test: String },
    /// One permutation of `specs/FILE` a case, each case's value the test its permutation
    /// names: a test the lesson has always run with cases (a kill and a cancel), now data.
    SpecCases { file: String },
    /// `scenarios::FUNCTION(subject)`, or `(subject, PARAMETER)` for a test with cases.
    Rust { function: String },
}

/// The cases of a parametrised test: its parameter, and each case's name and value.
pub struct Cases {
    pub parameter: String,
    pub kind: String,
    pub values: Vec<(String, String)>,
}

impl Listed {
    /// The test's names as `cargo test` prints them: one, or one per case
    /// (`NAME::case_1_two_workers`, as rstest names them).
    pub fn names(&self) -> Vec<String> {
        match &self.cases {
            None => vec![self.name.clone()],
            Some(cases) => (cases.values.iter().enumerate())
                .map(|(n, (case, _))| format!("{}::case_{}_{case}", self.name, n + 1))
                .collect(),
        }
    }
}

/// The crate that plays a lesson's tests: its folder under lessons/, from the list's `crate`
/// line, or the lesson's own.
pub fn crate_folder(lesson: &Path) -> Result<String, String> {
    let list = lesson.join("tests.list");
    let text = std::fs::read_to_string(&list).map_err(|e| format!("{}: {e}", list.display()))?;
    let named =
        (text.lines()).find_map(
            |line| match line.split_whitespace().collect::<Vec<_>>()[..] {
                ["crate", folder] => Some(folder.to_string()),
                _ => None,
            },
        );
    let own = lesson
        .file_name()
        .expect("a lesson's folder")
        .to_string_lossy();
    Ok(named.unwrap_or_else(|| own.into_owned()))
}

/// Reads `lesson/tests.list` and the specs it names, or says what is wrong, with the file and
/// line.
pub fn read(lesson: &Path) -> Result<Vec<Listed>, String> {
    let list = lesson.join("tests.list");
    let text = std::fs::read_to_string(&list).map_err(|e| format!("{}: {e}", list.display()))?;
    let specs = lesson.join("..").join(crate_folder(lesson)?).join("specs");
    let mut listed = Vec::new();
    for (at, line) in text.lines().enumerate() {
        let fail = |why: &str| format!("{}:{}: {why}", list.display(), at + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] | ["crate", _] => {}
            [comment, ..] if comment.starts_with('#') => {}
            ["spec", file] => listed.extend(spec_tests(&specs.join(file), file)?),
            ["spec", file, "as", name, rest @ ..] if rest.contains(&"cases") => {
                listed.push(spec_cases(&specs, file, name, rest).map_err(|why| fail(&why))?)
            }
            ["spec", file, test, rest @ ..] => {
                let mut test = (spec_tests(&specs.join(file), file)?.into_iter())
                    .find(|listed| listed.name == *test)
                    .ok_or_else(|| {
                        fail(&format!("specs/{file} has no permutation `test {test}`"))
                    })?;
                match rest {
                    [] => {}
                    ["repeat"] => test.repeat = true,
                    ["as", name] => test.name = name.to_string(),
                    ["as", name, "repeat"] => (test.name, test.repeat) = (name.to_string(), true),
                    _ => return Err(fail("after `spec FILE TEST`: `[as NAME] [repeat]`")),
                }
                listed.push(test);
            }
            ["rust", name, function, rest @ ..] => {
                listed.push(rust_test(name, function, rest).map_err(|why| fail(&why))?)
            }
            _ => {
                return Err(fail(
                    "expected `crate FOLDER`, `spec FILE [TEST [as NAME] [repeat]]` or `rust NAME \
                     FUNCTION [repeat] [multi_thread] [cases PARAMETER: TYPE CASE=VALUE …]`",
                ));
            }
        }
    }
    Ok(listed)
}

/// `spec FILE as NAME [repeat] cases CASE=TEST …`: one parametrised test, a case a permutation.
fn spec_cases(specs: &Path, file: &str, name: &str, rest: &[&str]) -> Result<Listed, String> {
    let permutations = spec_tests(&specs.join(file), file)?;
    let (repeat, cases) = match rest {
        ["repeat", "cases", cases @ ..] => (true, cases),
        ["cases", cases @ ..] => (false, cases),
        _ => return Err("after `spec FILE as NAME`: `[repeat] cases CASE=TEST …`".into()),
    };
    let mut values = Vec::new();
    for case in cases {
        let Some((case, test)) = case.split_once('=') else {
            return Err(format!("a case is CASE=TEST, not `{case}`"));
        };
        if !permutations.iter().any(|listed| listed.name == test) {
            return Err(format!("specs/{file} has no permutation `test {test}`"));
        }
        values.push((case.to_string(), format!("{test:?}")));
    }
    Ok(Listed {
        name: name.to_string(),
        plays: Plays::SpecCases {
            file: file.to_string(),
        },
        repeat,
        multi_thread: false,
        cases: Some(Cases {
            parameter: "test".into(),
            kind: "&str".into(),
            values,
        }),
    })
}

fn rust_test(name: &str, function: &str, rest: &[&str]) -> Result<Listed, String> {
    let mut test = Listed {
        name: name.to_string(),
        plays: Plays::Rust {
            function: function.to_string(),
        },
        repeat: false,
        multi_thread: false,
        cases: None,
    };
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        match *word {
            "repeat" => test.repeat = true,
            "multi_thread" => test.multi_thread = true,
            "cases" => {
                let parameter = words.next().and_then(|p| p.strip_suffix(':'));
                let (Some(parameter), Some(kind)) = (parameter, words.next()) else {
                    return Err("`cases` is followed by `PARAMETER: TYPE`".into());
                };
                let mut values = Vec::new();
                for case in words.by_ref() {
                    let Some((case, value)) = case.split_once('=') else {
                        return Err(format!("a case is CASE=VALUE, not `{case}`"));
                    };
                    values.push((case.to_string(), value.to_string()));
                }
                test.cases = Some(Cases {
                    parameter: parameter.to_string(),
                    kind: kind.to_string(),
                    values,
                });
            }
            other => {
                return Err(format!(
                    "`{other}` is not `repeat`, `multi_thread` or `cases`"
                ));
            }
        }
    }
    Ok(test)
}

/// The tests a spec's permutations name, in its order. A permutation's lines follow it up to
/// the next `permutation`; the spec itself is parsed, and checked, by the kit when it is played.
fn spec_tests(path: &Path, file: &str) -> Result<Vec<Listed>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // Each permutation: the test that plays it, and whether the exercise must fail it.
    let mut permutations: Vec<(Option<String>, bool)> = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let current = permutations.last_mut();
        match (words.as_slice(), current) {
            (["permutation", ..], _) => permutations.push((None, false)),
            (["test", name], Some((test, _))) => *test = Some(name.to_string()),
            (["expect", "exercise", verdict, ..], Some((_, fails))) => *fails = *verdict != "holds",
            _ => {}
        }
    }
    let tests: Vec<Listed> = (permutations.into_iter())
        .filter_map(|(test, fails)| {
            Some(Listed {
                name: test.clone()?,
                plays: Plays::Spec {
                    file: file.to_string(),
                    test: test?,
                },
                repeat: fails,
                multi_thread: false,
                cases: None,
            })
        })
        .collect();
    if tests.is_empty() {
        return Err(format!(
            "{}: no permutation names its test (`test NAME` under it)",
            path.display()
        ));
    }
    Ok(tests)
}

/// The Rust a lesson's `lib.rs` includes for its list: the `tests!` macro its exercise and
/// solution run (`tests!(handler::apply_credit)` is their whole test file), and the same tests
/// as data for the maintainers' checks (see `data`).
pub fn generate(listed: &[Listed], shown: &str) -> String {
    let (tests, data) = written(listed, shown);
    format!(
        "// Generated by build.rs from {shown} and the specs it names: do not edit.\n\n\
         /// The lesson's tests, for its exercise and solution: `tests!(handler::…)` is their test\n\
         /// file. Each test hands the handler to the spec or the scenario `tests.list` names.\n\
         #[macro_export]\n\
         macro_rules! tests {{\n    ($($handler:tt)+) => {{\n{tests}    }};\n}}\n\n{data}"
    )
}

/// The same for a crate that several lessons share, from each lesson's number and list: one
/// `tests!` macro whose first word picks the lesson (`tests!(lesson_02, handler::…)`), and each
/// lesson's data in a module of its own (`lesson_02::TESTS`).
pub fn generate_shared(lessons: &[(String, Vec<Listed>, String)]) -> String {
    let (mut arms, mut modules) = (String::new(), String::new());
    for (number, listed, shown) in lessons {
        let (tests, data) = written(listed, shown);
        arms.push_str(&format!(
            "    (lesson_{number}, $($handler:tt)+) => {{\n{tests}    }};\n"
        ));
        modules.push_str(&format!(
            "/// Lesson {number}'s tests, from {shown}.\npub mod lesson_{number} {{\n{data}}}\n\n"
        ));
    }
    format!(
        "// Generated by build.rs from the lessons' tests.list and the specs they name: do not \
         edit.\n\n\
         /// Each lesson's tests, for its exercise and solution: `tests!(lesson_NN, handler::…)` is\n\
         /// their test file. Each test hands the handler to the spec or the scenario the list names.\n\
         #[macro_export]\n\
         macro_rules! tests {{\n{arms}}}\n\n{modules}"
    )
}

/// A list's tests as the body of the `tests!` macro, and as data: `TESTS` by the names `cargo
/// test` prints, `CASES`, `REPEAT` (what `cargo repeat` counts), `SPECS` (the shipped
/// permutations it plays) and `play`, one test against any subject.
fn written(listed: &[Listed], shown: &str) -> (String, String) {
    use std::fmt::Write as _;
    let (mut tests, mut names, mut cases, mut repeat, mut specs, mut arms) = (
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    );
    for test in listed {
        let name = &test.name;
        let call = |subject: &str| match &test.plays {
            Plays::Spec { file, test } => {
                format!("$crate::scenarios::spec_test({subject}, {file:?}, {test:?})")
            }
            Plays::SpecCases { file } => {
                format!("$crate::scenarios::spec_test({subject}, {file:?}, test)")
            }
            Plays::Rust { function } => match &test.cases {
                None => format!("$crate::scenarios::{function}({subject})"),
                Some(cases) => {
                    format!(
                        "$crate::scenarios::{function}({subject}, {})",
                        cases.parameter
                    )
                }
            },
        };
        match (&test.plays, &test.cases) {
            (Plays::Spec { file, test }, _) => {
                let _ = writeln!(specs, "    ({file:?}, {test:?}),");
            }
            (Plays::SpecCases { file }, Some(cases)) => {
                for (_, test) in &cases.values {
                    let _ = writeln!(specs, "    ({file:?}, {test}),");
                }
            }
            _ => {}
        }
        let flavor = match test.multi_thread {
            true => "(flavor = \"multi_thread\", worker_threads = 2)",
            false => "",
        };
        let mut attributes = String::new();
        let mut parameter = String::new();
        if let Some(listed_cases) = &test.cases {
            attributes.push_str("        #[rstest::rstest]\n");
            for (case, value) in &listed_cases.values {
                let _ = writeln!(attributes, "        #[case::{case}({value})]");
            }
            parameter = format!("#[case] {}: {}", listed_cases.parameter, listed_cases.kind);
        }
        let _ = write!(
            tests,
            "{attributes}        #[tokio::test{flavor}]\n        async fn {name}({parameter}) -> \
             Result<(), $crate::Violation> {{\n            \
             $crate::__private::kit::reported({}.await)\n        }}\n\n",
            call("$crate::subject!($($handler)+)")
        );
        for shown_name in test.names() {
            let _ = writeln!(names, "    {shown_name:?},");
        }
        if test.repeat {
            let _ = writeln!(repeat, "    {name:?},");
        }
        match &test.cases {
            None => {
                let _ = writeln!(
                    arms,
                    "        {name:?} => {}.await,",
                    call("subject").replace("$crate", "crate")
                );
            }
            Some(listed_cases) => {
                for (shown_name, (_, value)) in test.names().iter().zip(&listed_cases.values) {
                    let _ = writeln!(cases, "    ({shown_name:?}, {value:?}),");
                    let _ = writeln!(
                        arms,
                        "        {shown_name:?} => {{\n            let {}: {} = {value};\n            \
                         {}.await\n        }}",
                        listed_cases.parameter,
                        listed_cases.kind,
                        call("subject").replace("$crate", "crate")
                    );
                }
            }
        }
    }
    let data = format!(
        "/// The tests, in the list's order, by the names `cargo test` prints.\n\
         pub const TESTS: &[&str] = &[\n{names}];\n\n\
         /// Each case of a parametrised test, by its name, and its value as written.\n\
         pub const CASES: &[(&str, &str)] = &[\n{cases}];\n\n\
         /// The races the shipped exercise loses, which `cargo repeat` counts, by test (a\n\
         /// parametrised test's cases all count): the specs' permutations that expect it to\n\
         /// fail, and the tests the list marks `repeat`.\n\
         pub const REPEAT: &[&str] = &[\n{repeat}];\n\n\
         /// The shipped permutations the list plays: each spec's file, and the test its\n\
         /// permutation names there.\n\
         pub const SPECS: &[(&str, &str)] = &[\n{specs}];\n\n\
         /// Plays the test `name` against `subject`, as the test of that name does.\n\
         pub async fn play<H: crate::Handler>(\n    name: &str,\n    \
         subject: crate::Subject<H>,\n) -> Result<(), crate::Violation> {{\n    \
         match name {{\n{arms}        other => panic!(\"{shown} lists no test {{other}}\"),\n    \
         }}\n}}\n"
    );
    (tests, data)
}
