//! A scripted scenario as data: a spec file in the spirit of PostgreSQL's isolation tester
//! (`src/test/isolation/specs`), which a student can read and write. This file parses one and
//! checks that it makes sense; playing it is the engine's.
//!
//! ```text
//! # Two deliveries of one event, the second while the first is inside its transaction.
//! setup { INSERT INTO accounts (id) VALUES ('acct-1') }
//!
//! session holder
//! step lock   { BEGIN; SELECT 1 FROM accounts WHERE id = 'acct-1' FOR UPDATE }
//! step commit { COMMIT }
//!
//! session worker-1
//! step first deliver {"event_id": "evt-1", "account_id": "acct-1", "amount_cents": 100}
//!
//! session worker-2
//! step again deliver {"event_id": "evt-1", "account_id": "acct-1", "amount_cents": 100}
//!
//! session script
//! step die kill worker-1
//!
//! permutation lock first again commit
//! expect exercise AppliedTwice
//! expect solution holds
//! ```
//!
//! - `setup { SQL }` runs before any session, once; there may be several.
//! - `session NAME` opens a session; the `step`s after it are its own.
//! - `step NAME { SQL }` runs SQL on the session's own connection; `step NAME deliver {JSON}` hands
//!   the lesson's handler one event (or request), written as the lesson's by-hand lines are;
//!   `step NAME kill|cancel|abandon SESSION` ends a delivering session's work as a crash, a
//!   statement timeout or a dropped future would; `step NAME cut SESSION before|after commit`,
//!   played before that session's delivery, cuts its connection at its first COMMIT, before
//!   the server gets the COMMIT or after it has answered; `step NAME hook HOOK [ARGUMENT…]` runs
//!   something the lesson supplies in Rust (a clock moved, a provider's behaviour), by name.
//! - `permutation STEP…` is one order to play the steps in; `expect exercise|solution VERDICT
//!   [WORD…]` after it says what that order must show against each side: `holds`, or the kind of
//!   violation it must fail with, and words its message must carry (in double quotes when they
//!   hold spaces, as in a wrong fix's header).
//! - After a permutation, in a lesson's own specs: `test NAME`, the test that plays it (the
//!   lesson's test list is its specs' `test` lines and its `tests.list`); `story "…"`, how a
//!   failure's message tells the delivery (the sentence may run over several lines); `expect wait
//!   SESSION`, a delivery the permutation must see waiting (one that decides without waiting has
//!   guessed); `expect no wait SESSION for AGGREGATE on "HELD"`, a delivery that needs nothing
//!   the others hold, and must not be seen waiting (one that waits locks more than its own
//!   aggregate).
//! - `#` starts a comment, outside braces. A block in braces may span lines; braces inside a
//!   quoted string (`'…'`, `"…"`) or a SQL comment (`-- …`) do not count.
//!
//! A file that does not make sense is refused with the line that says so: a syntax error, a step
//! or session named twice, a session that delivers twice, a fault aimed at a session that
//! delivers nothing, a permutation that names a missing step or one step twice, or plays a fault
//! before its session's delivery, an expectation with no permutation before it.

use std::fmt;

pub use crate::engine::commit_points::at_commit;
use crate::servers::relay::Cut;

/// A parsed and checked spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// SQL run once, before any session, in order.
    pub setup: Vec<String>,
    pub sessions: Vec<SessionSpec>,
    pub permutations: Vec<Permutation>,
}

/// A session and its steps, in the order the file lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSpec {
    pub name: String,
    pub line: usize,
    pub steps: Vec<StepSpec>,
}

/// One named step of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepSpec {
    pub name: String,
    pub line: usize,
    pub action: Action,
}

/// What a step does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// SQL on the session's own connection.
    Sql(String),
    /// One event or request for the lesson's handler, as the lesson's by-hand line (JSON).
    Deliver(String),
    /// The session's work ends as when its process dies: its connections are terminated.
    Kill(String),
    /// The session's waiting statement is cancelled, as by `statement_timeout`.
    Cancel(String),
    /// The session's future is dropped where it waits, as by a request timeout.
    Abandon(String),
    /// The session's delivery, played after this step, has its connection cut at its first
    /// COMMIT: before the COMMIT reaches the server, or after the server has answered it.
    Cut(String, Cut),
    /// Something the lesson does in Rust, by name, with its arguments as written.
    Hook {
        name: String,
        arguments: Vec<String>,
    },
}

/// One order of steps, and what it must show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutation {
    pub line: usize,
    pub steps: Vec<String>,
    pub expect: Vec<Expectation>,
    /// The test that plays this order (`test NAME`), in a lesson's own specs.
    pub test: Option<String>,
    /// How a failure's message opens, in a sentence: how the events were delivered (`story
    /// "…"`).
    pub story: Option<String>,
    /// Deliveries that must be seen waiting (`expect wait SESSION`): one that decides without
    /// waiting for a transaction still open has guessed its outcome.
    pub waits: Vec<String>,
    /// Deliveries that must not be seen waiting (`expect no wait …`).
    pub no_waits: Vec<NoWait>,
}

/// A delivery that needs nothing the other sessions hold (`expect no wait worker-2 for ord-2 on
/// "ord-1's row"`): if it waits all the same, the handler locks more than its own aggregate, and
/// one slow delivery holds up every other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoWait {
    pub session: String,
    /// What the delivery is about: "ord-2".
    pub aggregate: String,
    /// What the others hold, that it must not wait on: "ord-1's uncommitted payment".
    pub held: String,
}

/// What a permutation must show against one side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    pub side: Side,
    pub verdict: Verdict,
    /// Words the failure's message must carry.
    pub words: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The shipped exercise.
    Exercise,
    Solution,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The lesson's rule holds.
    Holds,
    /// The rule is broken, with a violation of this kind.
    Fails(String),
}

/// Why a spec was refused, and on which line (counted from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for SpecError {}

impl Spec {
    /// Parses `text` and checks that every name it uses is defined.
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let spec = Parser::new(text).spec()?;
        spec.check()?;
        Ok(spec)
    }

    /// The step named `name`, with its session.
    pub fn step(&self, name: &str) -> Option<(&SessionSpec, &StepSpec)> {
        (self.sessions.iter())
            .flat_map(|session| session.steps.iter().map(move |step| (session, step)))
            .find(|(_, step)| step.name == name)
    }

    fn check(&self) -> Result<(), SpecError> {
        let mut sessions: Vec<&SessionSpec> = Vec::new();
        let mut steps: Vec<&StepSpec> = Vec::new();
        for session in &self.sessions {
            if let Some(first) = sessions.iter().find(|s| s.name == session.name) {
                return Err(error(
                    session.line,
                    format!(
                        "session `{}` is named twice (first on line {})",
                        session.name, first.line
                    ),
                ));
            }
            sessions.push(session);
            let mut deliveries =
                (session.steps.iter()).filter(|step| matches!(step.action, Action::Deliver(_)));
            if let (Some(first), Some(second)) = (deliveries.next(), deliveries.next()) {
                return Err(error(
                    second.line,
                    format!(
                        "session `{}` delivers twice (first on line {}): each delivery is a \
                         worker of its own, on a connection of its own, so give this one a \
                         session of its own",
                        session.name, first.line
                    ),
                ));
            }
            for step in &session.steps {
                if let Some(first) = steps.iter().find(|s| s.name == step.name) {
                    return Err(error(
                        step.line,
                        format!(
                            "step `{}` is named twice (first on line {}): a permutation names \
                             steps, so each name is one step",
                            step.name, first.line
                        ),
                    ));
                }
                steps.push(step);
            }
        }
        for step in &steps {
            let target = match &step.action {
                Action::Kill(target)
                | Action::Cancel(target)
                | Action::Abandon(target)
                | Action::Cut(target, _) => target,
                _ => continue,
            };
            let delivers = (self.sessions.iter())
                .find(|session| &session.name == target)
                .map(|session| {
                    (session.steps.iter()).any(|s| matches!(s.action, Action::Deliver(_)))
                });
            match delivers {
                None => {
                    return Err(error(
                        step.line,
                        format!("step `{}` names no session `{target}`", step.name),
                    ));
                }
                Some(false) => {
                    return Err(error(
                        step.line,
                        format!(
                            "step `{}` aims at `{target}`, which delivers nothing: a fault ends \
                             a delivery's work (a session that only runs SQL is the test's own)",
                            step.name
                        ),
                    ));
                }
                Some(true) => {}
            }
        }
        if self.permutations.is_empty() {
            let line = self.sessions.last().map_or(1, |s| s.line);
            return Err(error(
                line,
                "no permutation: a spec plays its steps in the orders its `permutation` lines \
                 give, and has at least one"
                    .into(),
            ));
        }
        for (at, permutation) in self.permutations.iter().enumerate() {
            let earlier = &self.permutations[..at];
            if let Some(test) = &permutation.test
                && let Some(first) = earlier.iter().find(|p| p.test.as_ref() == Some(test))
            {
                return Err(error(
                    permutation.line,
                    format!(
                        "the test `{test}` plays two permutations (first on line {}): a test \
                         plays one",
                        first.line
                    ),
                ));
            }
            let waits = permutation.waits.iter().map(|session| (session, "to wait"));
            let no_waits = (permutation.no_waits.iter()).map(|n| (&n.session, "not to wait"));
            for (session, expected) in waits.chain(no_waits) {
                let delivered = (permutation.steps.iter()).any(|step| {
                    self.step(step).is_some_and(|(s, step)| {
                        &s.name == session && matches!(step.action, Action::Deliver(_))
                    })
                });
                if !delivered {
                    return Err(error(
                        permutation.line,
                        format!(
                            "the permutation expects `{session}` {expected}, but plays no \
                             delivery of `{session}`"
                        ),
                    ));
                }
            }
        }
        for permutation in &self.permutations {
            for (at, name) in permutation.steps.iter().enumerate() {
                if permutation.steps[..at].contains(name) {
                    return Err(error(
                        permutation.line,
                        format!(
                            "the permutation names `{name}` twice: a step runs once in a \
                             permutation (write a second step for a second statement)"
                        ),
                    ));
                }
                if !steps.iter().any(|step| &step.name == name) {
                    let known: Vec<&str> = steps.iter().map(|s| s.name.as_str()).collect();
                    return Err(error(
                        permutation.line,
                        format!(
                            "the permutation names `{name}`, which no session has (its steps: {})",
                            known.join(", ")
                        ),
                    ));
                }
                if let Some(target) = self.fault_target(name) {
                    self.delivered_before(permutation, at, name, target)?;
                }
                if let Some((target, _)) = self.cut_target(name) {
                    self.cut_before(permutation, at, name, target)?;
                }
            }
        }
        Ok(())
    }
}

impl Spec {
    /// The session a kill, cancel or abandon step aims at.
    pub fn fault_target(&self, step: &str) -> Option<&str> {
        match &self.step(step)?.1.action {
            Action::Kill(target) | Action::Cancel(target) | Action::Abandon(target) => Some(target),
            _ => None,
        }
    }

    /// Whether `permutation` cuts a session after every commit: it is played once to count
    /// the commits, then once a commit.
    pub fn cuts_after_every_commit(&self, permutation: &Permutation) -> bool {
        (permutation.steps.iter())
            .any(|step| matches!(self.cut_target(step), Some((_, Cut::AfterEveryCommit))))
    }

    /// The session a cut step aims at, and where it cuts.
    pub fn cut_target(&self, step: &str) -> Option<(&str, Cut)> {
        match &self.step(step)?.1.action {
            Action::Cut(target, cut) => Some((target, *cut)),
            _ => None,
        }
    }

    /// Each delivery: the session's name, the step's line, and the JSON it delivers.
    pub fn deliveries(&self) -> Vec<(&str, usize, &str)> {
        (self.sessions.iter())
            .flat_map(|session| {
                (session.steps.iter()).filter_map(|step| match &step.action {
                    Action::Deliver(json) => {
                        Some((session.name.as_str(), step.line, json.as_str()))
                    }
                    _ => None,
                })
            })
            .collect()
    }

    /// Steps no permutation names: written, and never played.
    pub fn unplayed(&self) -> Vec<&StepSpec> {
        (self.sessions.iter())
            .flat_map(|session| &session.steps)
            .filter(|step| {
                !(self.permutations.iter()).any(|p| p.steps.iter().any(|s| s == &step.name))
            })
            .collect()
    }

    /// A fault can only end work that has begun: the permutation must start a delivery of
    /// `target` before step `fault` (at `at`) aims at it.
    fn delivered_before(
        &self,
        permutation: &Permutation,
        at: usize,
        fault: &str,
        target: &str,
    ) -> Result<(), SpecError> {
        if self.delivers_before(permutation, at, target) {
            return Ok(());
        }
        Err(error(
            permutation.line,
            format!(
                "the permutation plays `{fault}` before `{target}` delivers anything: a fault \
                 ends work that has begun, so put `{target}`'s delivery earlier"
            ),
        ))
    }
}

impl Spec {
    /// Whether `permutation` starts a delivery of `target` before its step at `at`.
    fn delivers_before(&self, permutation: &Permutation, at: usize, target: &str) -> bool {
        permutation.steps[..at].iter().any(|earlier| {
            self.step(earlier).is_some_and(|(session, step)| {
                session.name == target && matches!(step.action, Action::Deliver(_))
            })
        })
    }

    /// A cut is set before the delivery it cuts: once the handler runs, its connection is made.
    fn cut_before(
        &self,
        permutation: &Permutation,
        at: usize,
        cut: &str,
        target: &str,
    ) -> Result<(), SpecError> {
        if !self.delivers_before(permutation, at, target) {
            return Ok(());
        }
        Err(error(
            permutation.line,
            format!(
                "the permutation plays `{cut}` after `{target}` delivers: a cut is set before \
                 the delivery whose COMMIT it cuts, so put `{cut}` earlier"
            ),
        ))
    }
}

fn error(line: usize, message: String) -> SpecError {
    SpecError { line, message }
}

/// A line-by-line reader, with blocks in braces that may run over several lines.
struct Parser<'a> {
    text: &'a str,
    /// Byte offset of the next unread character.
    at: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser { text, at: 0 }
    }

    fn line(&self) -> usize {
        self.text[..self.at].matches('\n').count() + 1
    }

    fn spec(mut self) -> Result<Spec, SpecError> {
        let mut spec = Spec {
            setup: Vec::new(),
            sessions: Vec::new(),
            permutations: Vec::new(),
        };
        while let Some(keyword) = self.word() {
            let line = self.line();
            match keyword {
                "setup" => spec.setup.push(self.block("setup")?),
                "session" => {
                    let name = self.name("session")?;
                    spec.sessions.push(SessionSpec {
                        name,
                        line,
                        steps: Vec::new(),
                    });
                }
                "step" => {
                    let name = self.name("step")?;
                    let action = self.action(&name)?;
                    let Some(session) = spec.sessions.last_mut() else {
                        return Err(error(
                            line,
                            format!("step `{name}` comes before any `session` line"),
                        ));
                    };
                    session.steps.push(StepSpec { name, line, action });
                }
                "permutation" => {
                    let steps = self.rest_of_line();
                    if steps.is_empty() {
                        return Err(error(line, "a permutation names at least one step".into()));
                    }
                    spec.permutations.push(Permutation {
                        line,
                        steps,
                        expect: Vec::new(),
                        test: None,
                        story: None,
                        waits: Vec::new(),
                        no_waits: Vec::new(),
                    });
                }
                "expect" | "test" | "story" => {
                    let Some(permutation) = spec.permutations.last_mut() else {
                        return Err(error(
                            line,
                            format!(
                                "`{keyword}` comes before any `permutation` line: it says \
                                 something of the permutation above it"
                            ),
                        ));
                    };
                    match keyword {
                        "test" => permutation.test = Some(self.name("test")?),
                        "story" => permutation.story = Some(self.story(line)?),
                        _ => match self.expectation(line)? {
                            Expected::Verdict(expectation) => permutation.expect.push(expectation),
                            Expected::Wait(session) => permutation.waits.push(session),
                            Expected::NoWait(no_wait) => permutation.no_waits.push(no_wait),
                        },
                    }
                }
                other => {
                    return Err(error(
                        line,
                        format!(
                            "`{other}` is not a keyword of a spec (setup, session, step, \
                             permutation, expect, test, story)"
                        ),
                    ));
                }
            }
        }
        Ok(spec)
    }

    /// Skips blanks, newlines and comments; the next word, if any.
    fn word(&mut self) -> Option<&'a str> {
        self.skip(true);
        self.token()
    }

    /// The next word on this line, if any.
    fn word_on_line(&mut self) -> Option<&'a str> {
        self.skip(false);
        self.token()
    }

    fn token(&mut self) -> Option<&'a str> {
        let rest = &self.text[self.at..];
        let len = rest
            .find(|c: char| c.is_whitespace() || c == '{' || c == '#')
            .unwrap_or(rest.len());
        if len == 0 {
            return None;
        }
        self.at += len;
        Some(&rest[..len])
    }

    /// Skips spaces and comments, and newlines too when `lines`.
    fn skip(&mut self, lines: bool) {
        loop {
            let rest = &self.text[self.at..];
            let Some(c) = rest.chars().next() else { return };
            if c == '#' {
                self.at += rest.find('\n').unwrap_or(rest.len());
            } else if c == '\n' && !lines {
                return;
            } else if c.is_whitespace() {
                self.at += c.len_utf8();
            } else {
                return;
            }
        }
    }

    fn name(&mut self, of: &str) -> Result<String, SpecError> {
        let line = self.line();
        self.word_on_line()
            .map(str::to_string)
            .ok_or_else(|| error(line, format!("`{of}` needs a name on the same line")))
    }

    /// The words left on this line.
    fn rest_of_line(&mut self) -> Vec<String> {
        let mut words = Vec::new();
        while let Some(word) = self.word_on_line() {
            words.push(word.to_string());
        }
        words
    }

    /// The rest of this line as words, each bare or in double quotes (`"in flight"`).
    fn quoted_words(&mut self, line: usize) -> Result<Vec<String>, SpecError> {
        let mut words = Vec::new();
        loop {
            self.skip(false);
            let rest = &self.text[self.at..];
            if let Some(quoted) = rest.strip_prefix('"') {
                let end = (quoted.find(['"', '\n']))
                    .filter(|&end| quoted[end..].starts_with('"'))
                    .ok_or_else(|| error(line, "a quoted word is never closed with `\"`".into()))?;
                words.push(quoted[..end].to_string());
                self.at += end + 2;
            } else if let Some(word) = self.token() {
                words.push(word.to_string());
            } else {
                return Ok(words);
            }
        }
    }

    fn action(&mut self, step: &str) -> Result<Action, SpecError> {
        let line = self.line();
        self.skip(false);
        if self.text[self.at..].starts_with('{') {
            return Ok(Action::Sql(self.block(step)?));
        }
        let kind = self.word_on_line().ok_or_else(|| {
            error(
                line,
                format!(
                    "step `{step}` says nothing it does: `{{ SQL }}`, `deliver {{JSON}}`, \
                     `kill`, `cancel` or `abandon SESSION`, `cut SESSION before|after commit`, \
                     or `hook NAME`"
                ),
            )
        })?;
        let target = |parser: &mut Parser<'_>| parser.name(&format!("{kind} in step `{step}`"));
        match kind {
            "deliver" => {
                self.skip(false);
                if !self.text[self.at..].starts_with('{') {
                    return Err(error(
                        line,
                        format!("step `{step}` delivers nothing: `deliver` takes a JSON object"),
                    ));
                }
                Ok(Action::Deliver(format!("{{{}}}", self.block(step)?)))
            }
            "kill" => Ok(Action::Kill(target(self)?)),
            "cancel" => Ok(Action::Cancel(target(self)?)),
            "abandon" => Ok(Action::Abandon(target(self)?)),
            "cut" => {
                let session = target(self)?;
                let cut = match self.rest_of_line().join(" ").as_str() {
                    "before commit" => Cut::BeforeCommit,
                    "after commit" => Cut::AfterCommit,
                    "after every commit" => Cut::AfterEveryCommit,
                    other => {
                        return Err(error(
                            line,
                            format!(
                                "step `{step}`: `cut {session}` is followed by `before commit`, \
                                 `after commit` or `after every commit`, not `{other}`"
                            ),
                        ));
                    }
                };
                Ok(Action::Cut(session, cut))
            }
            "hook" => {
                let name = self.name(&format!("hook in step `{step}`"))?;
                Ok(Action::Hook {
                    name,
                    arguments: self.rest_of_line(),
                })
            }
            other => Err(error(
                line,
                format!(
                    "step `{step}`: `{other}` is not a kind of step (`{{ SQL }}`, deliver, kill, \
                     cancel, abandon, cut, hook)"
                ),
            )),
        }
    }

    /// `{ … }`, its text trimmed (for `deliver`, without its outer braces: the caller puts
    /// them back). Braces inside quotes do not count.
    fn block(&mut self, of: &str) -> Result<String, SpecError> {
        let line = self.line();
        self.skip(false);
        if !self.text[self.at..].starts_with('{') {
            return Err(error(
                line,
                format!("`{of}` needs a block in braces: {{ … }}"),
            ));
        }
        let start = self.at + 1;
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        let mut escaped = false;
        let mut comment = false;
        let block = &self.text[self.at..];
        for (offset, c) in block.char_indices() {
            // A SQL comment runs to the end of its line, and may hold an apostrophe.
            if comment {
                comment = c != '\n';
                continue;
            }
            match quote {
                Some(q) => {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' && q == '"' {
                        escaped = true;
                    } else if c == q {
                        quote = None;
                    }
                }
                None => match c {
                    '-' if block[offset..].starts_with("--") => comment = true,
                    '\'' | '"' => quote = Some(c),
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            let end = self.at + offset;
                            self.at = end + 1;
                            return Ok(self.text[start..end].trim().to_string());
                        }
                    }
                    _ => {}
                },
            }
        }
        Err(error(
            line,
            format!("the block of `{of}` opened here is never closed with `}}`"),
        ))
    }

    /// A permutation's story: one sentence in double quotes, which may run over several lines
    /// (read as one line, its spaces and line breaks each one space).
    fn story(&mut self, line: usize) -> Result<String, SpecError> {
        self.skip(false);
        let rest = &self.text[self.at..];
        let refused = || {
            error(
                line,
                "`story` takes one sentence, in double quotes (it may run over several lines)"
                    .into(),
            )
        };
        let Some(opened) = rest.strip_prefix('"') else {
            return Err(refused());
        };
        let Some(end) = opened.find('"') else {
            return Err(refused());
        };
        let story = opened[..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        self.at += 1 + end + 1;
        if story.is_empty() || !self.rest_of_line().is_empty() {
            return Err(refused());
        }
        Ok(story)
    }

    /// The rest of `expect no wait SESSION for AGGREGATE on "HELD"`.
    fn no_wait(&mut self, line: usize) -> Result<Expected, SpecError> {
        let words = self.quoted_words(line)?;
        match &words[..] {
            [wait, session, r#for, aggregate, on, held]
                if wait == "wait" && r#for == "for" && on == "on" =>
            {
                Ok(Expected::NoWait(NoWait {
                    session: session.clone(),
                    aggregate: aggregate.clone(),
                    held: held.clone(),
                }))
            }
            _ => Err(error(
                line,
                "`expect no wait` reads `expect no wait SESSION for AGGREGATE on \"WHAT THE \
                 OTHERS HOLD\"`, as in `expect no wait worker-2 for ord-2 on \"ord-1's row\"`"
                    .into(),
            )),
        }
    }

    fn expectation(&mut self, line: usize) -> Result<Expected, SpecError> {
        let side = match self.word_on_line() {
            Some("exercise") => Side::Exercise,
            Some("solution") => Side::Solution,
            Some("wait") => {
                return match self.word_on_line() {
                    Some(session) => Ok(Expected::Wait(session.to_string())),
                    None => Err(error(
                        line,
                        "`expect wait` names the session that must be seen waiting".into(),
                    )),
                };
            }
            Some("no") => return self.no_wait(line),
            other => {
                return Err(error(
                    line,
                    format!(
                        "`expect` names a side, `exercise` or `solution` (or `wait` and a \
                         session, or `no wait …`), not `{}`",
                        other.unwrap_or("")
                    ),
                ));
            }
        };
        let verdict = match self.word_on_line() {
            Some("holds") => Verdict::Holds,
            Some(kind) => Verdict::Fails(kind.to_string()),
            None => {
                return Err(error(
                    line,
                    "`expect` needs a verdict: `holds`, or the kind of violation".into(),
                ));
            }
        };
        let words = self.quoted_words(line)?;
        if verdict == Verdict::Holds && !words.is_empty() {
            return Err(error(
                line,
                "a rule that holds prints no message, so `holds` takes no words".into(),
            ));
        }
        Ok(Expected::Verdict(Expectation {
            side,
            verdict,
            words,
        }))
    }
}

/// What an `expect` line says.
enum Expected {
    Verdict(Expectation),
    Wait(String),
    NoWait(NoWait),
}

pub mod played;
mod script;
mod shipped;
pub use played::{Feed, Hidden, Played, Run};
pub use shipped::{Shipped, lesson_named};

#[cfg(test)]
mod tests;
