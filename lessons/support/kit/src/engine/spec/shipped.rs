//! A lesson's own specs, parsed once and found by file and test: what every lesson on the
//! engine would otherwise write for itself.

use super::{Permutation, Spec, SpecError};

/// A lesson's shipped specs, by file name.
pub struct Shipped {
    folder: &'static str,
    specs: Vec<(&'static str, Spec)>,
}

impl Shipped {
    /// Parses each of `files` (its name in `specs/`, its text), and checks it as the lesson
    /// checks a student's (`check`). A shipped spec that does not make sense is the maintainers'
    /// bug: it panics, naming the file and line, in every test that plays it.
    pub fn parse(
        folder: &'static str,
        files: &[(&'static str, &'static str)],
        check: fn(&Spec) -> Result<(), SpecError>,
    ) -> Shipped {
        let specs = (files.iter())
            .map(|&(name, text)| {
                let spec = Spec::parse(text)
                    .and_then(|spec| check(&spec).map(|()| spec))
                    .and_then(|spec| each_a_test(&spec).map(|()| spec))
                    .unwrap_or_else(|e| panic!("{folder}/specs/{name}, {e}"));
                (name, spec)
            })
            .collect();
        Shipped { folder, specs }
    }

    /// Every spec, by file name, in the order given.
    pub fn all(&self) -> &[(&'static str, Spec)] {
        &self.specs
    }

    /// The spec `name` (`forced.spec`).
    pub fn spec(&self, name: &str) -> &Spec {
        (self.specs.iter().find(|(n, _)| *n == name))
            .map(|(_, spec)| spec)
            .unwrap_or_else(|| panic!("{} has no spec {name}", self.folder))
    }

    /// The test `test`: spec `name`, the permutation whose `test` line names it, and its story.
    pub fn test(&self, name: &str, test: &str) -> (&Spec, &Permutation, &str) {
        let spec = self.spec(name);
        let permutation = (spec.permutations.iter())
            .find(|p| p.test.as_deref() == Some(test))
            .unwrap_or_else(|| panic!("{}/specs/{name} has no test {test}", self.folder));
        let story = (permutation.story.as_deref()).unwrap_or_else(|| {
            panic!(
                "{}/specs/{name}: the test {test} tells no story",
                self.folder
            )
        });
        (spec, permutation, story)
    }
}

/// A shipped spec's permutations are tests: each names its test and tells its story.
fn each_a_test(spec: &Spec) -> Result<(), SpecError> {
    match (spec.permutations.iter()).find(|p| p.test.is_none() || p.story.is_none()) {
        None => Ok(()),
        Some(permutation) => Err(SpecError {
            line: permutation.line,
            message: "a lesson's own permutation names the test that plays it (`test NAME`) \
                      and tells its story (`story \"…\"`)"
                .into(),
        }),
    }
}
