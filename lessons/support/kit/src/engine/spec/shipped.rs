//! A lesson's own specs, parsed once and found by file and test: what every lesson on the
//! engine would otherwise write for itself.

use super::{Permutation, Spec, SpecError};

/// A lesson's shipped specs, by file name.
pub struct Shipped {
    folder: &'static str,
    specs: Vec<(&'static str, Spec)>,
    /// Each spec's text, by file name, for [`Shipped::code`].
    texts: Vec<(&'static str, String)>,
}

impl Shipped {
    /// Reads every spec in the lesson's `specs/` folder but the students' `your-turn.spec`, in
    /// name order (`lesson` is the lesson crate's folder, `env!("CARGO_MANIFEST_DIR")`), parses
    /// each, and checks it as the lesson checks a student's (`check`). Read when first played,
    /// not compiled in: an edited spec needs no rebuild. A shipped spec that cannot be read or
    /// does not make sense is the maintainers' bug: it panics, naming the file (and line), in
    /// every test that plays it.
    pub fn read(lesson: &str, check: fn(&Spec) -> Result<(), SpecError>) -> Shipped {
        let dir = std::path::Path::new(lesson).join("specs");
        let name =
            |path: &std::path::Path| path.file_name().map(|n| n.to_string_lossy().into_owned());
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .map(|entries| entries.flatten().filter_map(|e| name(&e.path())).collect())
            .unwrap_or_default();
        files.retain(|f| f.ends_with(".spec") && f != "your-turn.spec");
        files.sort();
        let folder: &'static str = Box::leak(format!("lessons/{}", folder_name(lesson)).into());
        let texts: Vec<(&'static str, String)> = (files.into_iter())
            .map(|file| {
                let text = std::fs::read_to_string(dir.join(&file))
                    .unwrap_or_else(|e| panic!("{folder}/specs/{file}: {e}"));
                (&*Box::leak(file.into_boxed_str()), text)
            })
            .collect();
        let files: Vec<(&'static str, &str)> =
            (texts.iter()).map(|(n, t)| (*n, t.as_str())).collect();
        Shipped::parse(folder, &files, check)
    }

    /// Parses each of `files` (its name in `specs/`, its text), and checks it as the lesson
    /// checks a student's (`check`).
    pub fn parse(
        folder: &'static str,
        files: &[(&'static str, &str)],
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
        let texts = (files.iter())
            .map(|&(name, text)| (name, text.to_string()))
            .collect();
        Shipped {
            folder,
            specs,
            texts,
        }
    }

    /// The lesson's folder, from the workspace's root (`lessons/01-check-then-act`).
    pub fn folder(&self) -> &'static str {
        self.folder
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

    /// What the test `test` of spec `name` plays, as its spec says it: the lines before the
    /// first permutation (setup, sessions) and its permutation's, without comments, where the
    /// parser found them.
    pub fn code(&self, name: &str, test: &str) -> String {
        let (spec, permutation, _) = self.test(name, test);
        let text = (self.texts.iter().find(|(n, _)| *n == name)).map_or("", |(_, t)| t.as_str());
        let lines: Vec<&str> = text.lines().collect();
        let first = spec
            .permutations
            .first()
            .map_or(lines.len(), |p| p.line - 1);
        let next = (spec.permutations.iter()).find(|p| p.line > permutation.line);
        let own = (permutation.line - 1)..next.map_or(lines.len(), |p| p.line - 1);
        let kept: Vec<&str> = (lines[..first].iter().chain(&lines[own]))
            .filter(|line| !line.trim_start().starts_with('#'))
            .copied()
            .collect();
        kept.join("\n").trim().to_string()
    }

    /// The test `test`: spec `name`, the permutation whose `test` line names it, and its story.
    pub fn test(&self, name: &str, test: &str) -> (&Spec, &Permutation, &str) {
        let spec = self.spec(name);
        let permutation = (spec.permutations.iter())
            .find(|p| p.test.as_deref() == Some(test))
            .unwrap_or_else(|| panic!("{}/specs/{name} has no test {test}", self.folder));
        // A released permutation's failures tell its round instead.
        let told = permutation.barrier.map(|_| "");
        let story = (permutation.story.as_deref()).or(told).unwrap_or_else(|| {
            panic!(
                "{}/specs/{name}: the test {test} tells no story",
                self.folder
            )
        });
        (spec, permutation, story)
    }
}

/// A shipped spec's permutations are tests: each names its test and tells its story (a
/// released one's failures tell their round).
fn each_a_test(spec: &Spec) -> Result<(), SpecError> {
    let untold = |p: &Permutation| p.story.is_none() && p.barrier.is_none();
    match (spec.permutations.iter()).find(|p| p.test.is_none() || untold(p)) {
        None => Ok(()),
        Some(permutation) => Err(SpecError {
            line: permutation.line,
            message: "a lesson's own permutation names the test that plays it (`test NAME`) \
                      and tells its story (`story \"…\"`)"
                .into(),
        }),
    }
}

impl Spec {
    /// Each delivery's event (or request), in the spec's order, read by `read` as the lesson's
    /// by-hand feed reads a line; one it refuses is refused with its step's line (`who` refuses
    /// it: "lesson 01"). A spec that delivers nothing is refused too: a race needs a delivery.
    pub fn events<E>(
        &self,
        who: &str,
        read: impl Fn(&str) -> Result<E, String>,
    ) -> Result<Vec<E>, SpecError> {
        let events = self.events_at(who, read)?;
        Ok(events.into_iter().map(|(_, _, event)| event).collect())
    }

    /// [`Spec::events`], each with the session that delivers it and its line.
    fn events_at<E>(
        &self,
        who: &str,
        read: impl Fn(&str) -> Result<E, String>,
    ) -> Result<Vec<(&str, usize, E)>, SpecError> {
        let mut events = Vec::new();
        for (session, line, json) in self.deliveries() {
            let event = read(json).map_err(|why| SpecError {
                line,
                message: format!("{session} delivers what {who} refuses: {why}"),
            })?;
            events.push((session, line, event));
        }
        if events.is_empty() {
            return Err(SpecError {
                line: 1,
                message: "no session delivers anything: a spec races deliveries, so at least one \
                          step is `deliver {…}`"
                    .into(),
            });
        }
        Ok(events)
    }

    /// The one event every delivery carries, for a lesson whose rule is about one event
    /// delivered more than once (`named` says which, in the refusal: `evt-1`). A spec that
    /// delivers two is refused with the line of the first that differs.
    pub fn one_event<E: PartialEq>(
        &self,
        who: &str,
        read: impl Fn(&str) -> Result<E, String>,
        named: impl Fn(&E) -> String,
    ) -> Result<E, SpecError> {
        let same = "every delivery carries the same one";
        let mut events = self.one_event_by(who, read, |_| (), named, same)?;
        Ok(events.swap_remove(0))
    }

    /// [`Spec::one_event`] for each thing `key` names (its `noun`: an order), for a lesson whose
    /// rule judges each order apart: the distinct events, in the spec's order. A second, different
    /// event for one order is refused with its line.
    pub fn one_event_each<E: PartialEq, K: PartialEq>(
        &self,
        who: &str,
        read: impl Fn(&str) -> Result<E, String>,
        key: impl Fn(&E) -> K,
        named: impl Fn(&E) -> String,
        noun: &str,
    ) -> Result<Vec<E>, SpecError> {
        let same = format!("every delivery for one {noun} carries the same one");
        self.one_event_by(who, read, key, named, &same)
    }

    fn one_event_by<E: PartialEq, K: PartialEq>(
        &self,
        who: &str,
        read: impl Fn(&str) -> Result<E, String>,
        key: impl Fn(&E) -> K,
        named: impl Fn(&E) -> String,
        same: &str,
    ) -> Result<Vec<E>, SpecError> {
        let mut distinct: Vec<E> = Vec::new();
        for (session, line, event) in self.events_at(who, read)? {
            match distinct.iter().find(|first| key(first) == key(&event)) {
                Some(first) if *first != event => {
                    return Err(SpecError {
                        line,
                        message: format!(
                            "{session} delivers {}, and an earlier session {}: {who}'s rule \
                             judges one event delivered more than once, so {same}",
                            named(&event),
                            named(first)
                        ),
                    });
                }
                Some(_) => {}
                None => distinct.push(event),
            }
        }
        Ok(distinct)
    }
}

/// The last part of a lesson's path (`01-check-then-act`).
fn folder_name(path: &str) -> &str {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path)
}
