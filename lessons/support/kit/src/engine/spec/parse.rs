//! The reader of a spec file: PostgreSQL's isolation tester grammar (its `specparse.y` and
//! `specscanner.l`, in PostgreSQL 15), and the workbook's words on top of it. Every token is
//! read where the grammar allows it, or the file is refused with its line: nothing is skipped,
//! and nothing is read as something else.
//!
//! ```text
//! spec        := setup* teardown? session+ permutation*   (and, in any order after them,
//!                                                          the workbook's expect, test,
//!                                                          story, barrier)
//! setup       := 'setup' BLOCK               teardown := 'teardown' BLOCK
//! session     := 'session' NAME setup? step+ teardown?
//! step        := 'step' NAME BLOCK | 'step' NAME KIND …   (deliver, kill, cancel, abandon,
//!                                                          cut, hook: the workbook's)
//! permutation := 'permutation' pstep+         (over as many lines as it takes)
//! pstep       := NAME | NAME '(' marker (',' marker)* ')'
//! marker      := '*' | NAME | NAME 'notices' INTEGER
//! NAME        := plain | '"' quoted '"'       ("" inside quotes is one ")
//! ```
//!
//! A plain name is a run of anything but blanks and `{ } ( ) , # "`: the isolation tester's
//! identifiers (letters, digits, `_`, `$`), and the workbook's `worker-1`. A keyword is a name
//! only in quotes (`step "permutation" { … }`). `#` starts a comment outside a block.

use super::{
    Action, Barrier, Expectation, Expected, Marker, NoWait, Permutation, SessionSpec, Side, Spec,
    SpecError, StepSpec, Verdict, error,
};
use crate::servers::relay::Cut;

/// The words that open a part of a spec: the isolation tester's, then the workbook's. A
/// permutation's list of steps runs until the next of them.
const KEYWORDS: [&str; 9] = [
    "setup",
    "teardown",
    "session",
    "step",
    "permutation",
    "expect",
    "test",
    "story",
    "barrier",
];

/// A reader of one spec's text, with blocks in braces that may run over several lines.
pub(super) struct Parser<'a> {
    text: &'a str,
    /// Byte offset of the next unread character.
    at: usize,
}

/// A name as read: its text, and whether it was quoted (a quoted keyword is a name).
struct Name {
    text: String,
    quoted: bool,
}

impl<'a> Parser<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Parser { text, at: 0 }
    }

    fn line(&self) -> usize {
        self.text[..self.at].matches('\n').count() + 1
    }

    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    pub(super) fn spec(mut self) -> Result<Spec, SpecError> {
        let mut spec = Spec {
            setup: Vec::new(),
            teardown: None,
            sessions: Vec::new(),
            permutations: Vec::new(),
        };
        let mut teardown_line = 0;
        loop {
            self.skip(true);
            if self.rest().is_empty() {
                return refuse_a_delivering_teardown(spec, teardown_line);
            }
            let line = self.line();
            let keyword = self.name_token(line)?;
            if keyword.quoted || !KEYWORDS.contains(&keyword.text.as_str()) {
                return Err(error(
                    line,
                    format!(
                        "`{}` is not a keyword of a spec ({})",
                        keyword.text,
                        KEYWORDS.join(", ")
                    ),
                ));
            }
            match keyword.text.as_str() {
                "setup" => self.setup(&mut spec, line)?,
                "teardown" => {
                    if spec.sessions.is_empty() {
                        teardown_line = line;
                    }
                    self.teardown(&mut spec, line)?
                }
                "session" => {
                    let name = self.name_anywhere("session")?;
                    spec.sessions.push(SessionSpec {
                        name,
                        line,
                        setup: None,
                        teardown: None,
                        steps: Vec::new(),
                    });
                }
                "step" => {
                    let name = self.name_anywhere("step")?;
                    let action = self.action(&name)?;
                    let Some(session) = spec.sessions.last_mut() else {
                        return Err(error(
                            line,
                            format!("step `{name}` comes before any `session` line"),
                        ));
                    };
                    if session.teardown.is_some() {
                        return Err(error(
                            line,
                            format!(
                                "step `{name}` comes after the teardown of session `{}`: a \
                                 session's teardown follows its last step",
                                session.name
                            ),
                        ));
                    }
                    session.steps.push(StepSpec { name, line, action });
                }
                "permutation" => {
                    let (steps, markers) = self.permutation_steps(line)?;
                    spec.permutations.push(Permutation {
                        line,
                        steps,
                        markers,
                        expect: Vec::new(),
                        test: None,
                        story: None,
                        waits: Vec::new(),
                        no_waits: Vec::new(),
                        barrier: None,
                    });
                }
                keyword => self.about_the_permutation(&mut spec, keyword, line)?,
            }
        }
    }
}

/// The spec's own teardown runs after every session's: in a spec that delivers, that is before
/// the lesson reads what the deliveries left, so it has no place there (the database is thrown
/// away after each permutation all the same).
fn refuse_a_delivering_teardown(spec: Spec, line: usize) -> Result<Spec, SpecError> {
    if spec.teardown.is_none() || spec.is_sessions_only() {
        return Ok(spec);
    }
    Err(error(
        line,
        "a spec-level `teardown` in a spec that delivers: it would run before the lesson reads \
         what the deliveries left, and each permutation's database is thrown away anyway"
            .into(),
    ))
}

impl<'a> Parser<'a> {
    /// `setup { … }`: the spec's, before any session (there may be several), or a session's,
    /// right after its `session` line (one), which runs on that session's own connection.
    fn setup(&mut self, spec: &mut Spec, line: usize) -> Result<(), SpecError> {
        let sql = self.block("setup")?;
        let Some(session) = spec.sessions.last_mut() else {
            spec.setup.push(sql);
            return Ok(());
        };
        if !session.steps.is_empty() || session.setup.is_some() {
            return Err(error(
                line,
                format!(
                    "a `setup` after the steps of session `{}` (line {}): a session's setup \
                     comes right after its `session` line, before its steps, and there is one; \
                     the spec's own setups come before any session",
                    session.name, session.line
                ),
            ));
        }
        session.setup = Some(sql);
        Ok(())
    }

    /// `teardown { … }`: the spec's, before any session, or a session's, after its steps.
    fn teardown(&mut self, spec: &mut Spec, line: usize) -> Result<(), SpecError> {
        let sql = self.block("teardown")?;
        let slot = match spec.sessions.last_mut() {
            None => &mut spec.teardown,
            Some(session) if session.steps.is_empty() => {
                return Err(error(
                    line,
                    format!(
                        "a `teardown` before any step of session `{}`: a session's teardown \
                         follows its steps",
                        session.name
                    ),
                ));
            }
            Some(session) => &mut session.teardown,
        };
        if slot.is_some() {
            return Err(error(line, "a second `teardown` where there is one".into()));
        }
        *slot = Some(sql);
        Ok(())
    }

    /// The workbook's `expect`, `test` and `story`, each about the permutation above it.
    fn about_the_permutation(
        &mut self,
        spec: &mut Spec,
        keyword: &str,
        line: usize,
    ) -> Result<(), SpecError> {
        let Some(permutation) = spec.permutations.last_mut() else {
            return Err(error(
                line,
                format!(
                    "`{keyword}` comes before any `permutation` line: it says something of the \
                     permutation above it"
                ),
            ));
        };
        match keyword {
            "test" => permutation.test = Some(self.name("test")?),
            "story" => permutation.story = Some(self.story(line)?),
            "barrier" if permutation.barrier.is_some() => {
                return Err(error(line, "a second `barrier` for one permutation".into()));
            }
            "barrier" => permutation.barrier = Some(self.barrier(line)?),
            _ => match self.expectation(line)? {
                Expected::Verdict(expectation) => permutation.expect.push(expectation),
                Expected::Wait(session) => permutation.waits.push(session),
                Expected::NoWait(no_wait) => permutation.no_waits.push(no_wait),
            },
        }
        Ok(())
    }

    /// A permutation's steps, each with its markers, over as many lines as they take: up to the
    /// next keyword, or the end of the file.
    fn permutation_steps(
        &mut self,
        line: usize,
    ) -> Result<(Vec<String>, Vec<Vec<Marker>>), SpecError> {
        let (mut steps, mut markers) = (Vec::new(), Vec::new());
        loop {
            self.skip(true);
            let before = self.at;
            if self.rest().is_empty() {
                break;
            }
            let at = self.line();
            let name = self.name_token(at)?;
            if !name.quoted && KEYWORDS.contains(&name.text.as_str()) {
                self.at = before;
                break;
            }
            steps.push(name.text);
            markers.push(self.markers(at)?);
        }
        if steps.is_empty() {
            return Err(error(line, "a permutation names at least one step".into()));
        }
        Ok((steps, markers))
    }

    /// `(*)`, `(other)`, `(other notices 2)`, `(*, other)` after a step of a permutation: when
    /// the isolation tester may report the step as done. None when no parenthesis follows.
    fn markers(&mut self, line: usize) -> Result<Vec<Marker>, SpecError> {
        let before = self.at;
        self.skip(true);
        if !self.rest().starts_with('(') {
            self.at = before;
            return Ok(Vec::new());
        }
        self.at += 1;
        let mut markers = Vec::new();
        loop {
            self.skip(true);
            let marker = if self.rest().starts_with('*') {
                self.at += 1;
                Marker::Once
            } else {
                let step = self.name_token(line)?.text;
                self.skip(true);
                let rest = self.rest();
                if rest.starts_with("notices") && !rest[7..].starts_with(plain_char) {
                    self.at += "notices".len();
                    self.skip(true);
                    let digits = self.rest().len()
                        - self
                            .rest()
                            .trim_start_matches(|c: char| c.is_ascii_digit())
                            .len();
                    let count: u32 = self.rest()[..digits].parse().map_err(|_| {
                        error(line, format!("`{step} notices` takes a number of notices"))
                    })?;
                    self.at += digits;
                    Marker::Notices(step, count)
                } else {
                    Marker::After(step)
                }
            };
            markers.push(marker);
            self.skip(true);
            match self.rest().chars().next() {
                Some(',') => self.at += 1,
                Some(')') => {
                    self.at += 1;
                    return Ok(markers);
                }
                _ => {
                    return Err(error(
                        line,
                        "a step's markers are `(*)`, `(STEP)` or `(STEP notices N)`, separated \
                         by commas and closed with `)`"
                            .into(),
                    ));
                }
            }
        }
    }

    /// Skips blanks and comments, and newlines too when `lines`.
    fn skip(&mut self, lines: bool) {
        loop {
            let rest = self.rest();
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

    /// A name at the reader: plain, or in double quotes. Nothing there (a brace, a newline)
    /// is an empty plain name, for the caller to refuse.
    fn name_token(&mut self, line: usize) -> Result<Name, SpecError> {
        let rest = self.rest();
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut text = String::new();
            let mut chars = quoted.char_indices();
            while let Some((at, c)) = chars.next() {
                match c {
                    '"' if quoted[at + 1..].starts_with('"') => {
                        text.push('"');
                        chars.next();
                    }
                    '"' => {
                        self.at += 1 + at + 1;
                        return Ok(Name { text, quoted: true });
                    }
                    '\n' => {
                        return Err(error(line, "a quoted name runs past its line".into()));
                    }
                    c => text.push(c),
                }
            }
            return Err(error(
                line,
                "a quoted name is never closed with `\"`".into(),
            ));
        }
        let len = rest.find(|c| !plain_char(c)).unwrap_or(rest.len());
        self.at += len;
        Ok(Name {
            text: rest[..len].to_string(),
            quoted: false,
        })
    }

    /// The next word on this line, if any: a keyword of the workbook's steps or lines.
    fn word_on_line(&mut self) -> Option<&'a str> {
        self.skip(false);
        let rest = self.rest();
        let len = rest.find(|c| !plain_char(c)).unwrap_or(rest.len());
        self.at += len;
        (len > 0).then(|| &rest[..len])
    }

    /// The name of a `session` or a `step`, after any blanks, line breaks and comments, as
    /// the isolation tester reads one.
    fn name_anywhere(&mut self, of: &str) -> Result<String, SpecError> {
        let line = self.line();
        self.skip(true);
        if self.rest().is_empty() {
            return Err(error(line, format!("`{of}` needs a name")));
        }
        self.name(of)
    }

    /// The name of a `test`, or of what a workbook step acts on, on the same line.
    fn name(&mut self, of: &str) -> Result<String, SpecError> {
        let line = self.line();
        self.skip(false);
        let name = self.name_token(line)?;
        if name.text.is_empty() && !name.quoted {
            return Err(error(line, format!("`{of}` needs a name on the same line")));
        }
        if !name.quoted && KEYWORDS.contains(&name.text.as_str()) {
            return Err(error(
                line,
                format!(
                    "`{}` is a keyword: a {of} of that name is written in double quotes",
                    name.text
                ),
            ));
        }
        Ok(name.text)
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
            let rest = self.rest();
            if let Some(quoted) = rest.strip_prefix('"') {
                let end = (quoted.find(['"', '\n']))
                    .filter(|&end| quoted[end..].starts_with('"'))
                    .ok_or_else(|| error(line, "a quoted word is never closed with `\"`".into()))?;
                words.push(quoted[..end].to_string());
                self.at += end + 2;
            } else if let Some(word) = self.word_on_line() {
                words.push(word.to_string());
            } else if rest.starts_with(|c: char| c != '\n' && c != '#') && !rest.is_empty() {
                // Punctuation the words of a line never hold: take it as one word, so that the
                // caller refuses it by name.
                let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
                words.push(rest[..len].to_string());
                self.at += len;
            } else {
                return Ok(words);
            }
        }
    }

    /// Whether a block in braces opens at the reader, on this line or after a line break (the
    /// isolation tester lets a step's or a setup's brace open on the next line).
    fn block_follows(&mut self) -> bool {
        let before = self.at;
        self.skip(true);
        let opens = self.rest().starts_with('{');
        if !opens {
            self.at = before;
        }
        opens
    }

    fn action(&mut self, step: &str) -> Result<Action, SpecError> {
        let line = self.line();
        self.skip(false);
        if self.rest().starts_with('\n') || self.rest().is_empty() {
            if self.block_follows() {
                return Ok(Action::Sql(self.block(step)?));
            }
        } else if self.rest().starts_with('{') {
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
                if !self.rest().starts_with('{') {
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
                    "before commit held open" => Cut::BeforeCommitHeldOpen,
                    "after commit" => Cut::AfterCommit,
                    "after every commit" => Cut::AfterEveryCommit,
                    other => {
                        return Err(error(
                            line,
                            format!(
                                "step `{step}`: `cut {session}` is followed by `before commit`, \
                                 `before commit held open`, `after commit` or `after every \
                                 commit`, not `{other}`"
                            ),
                        ));
                    }
                };
                Ok(Action::Cut(session, cut))
            }
            "pause" => {
                let session = target(self)?;
                match self.rest_of_line().join(" ").as_str() {
                    "after commit" => Ok(Action::Cut(session, Cut::PauseAfterCommit)),
                    other => Err(error(
                        line,
                        format!(
                            "step `{step}`: `pause {session}` is followed by `after commit`, not \
                             `{other}`"
                        ),
                    )),
                }
            }
            "resume" => Ok(Action::Resume(target(self)?)),
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

    /// `{ … }`, its text trimmed as the isolation tester trims it: the blanks after `{` and
    /// before `}`, not the line breaks (for `deliver`, without its outer braces: the caller
    /// puts them back). The brace may open on the next line. Braces inside quotes or a SQL
    /// comment (`-- …`, `/* … */`) do not count: the workbook's SQL writes JSON.
    fn block(&mut self, of: &str) -> Result<String, SpecError> {
        let line = self.line();
        if !self.block_follows() {
            return Err(error(
                line,
                format!("`{of}` needs a block in braces: {{ … }}"),
            ));
        }
        let line = self.line();
        let start = self.at + 1;
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        let mut escaped = false;
        let mut comment = false;
        let mut block_comment = false;
        let block = self.rest();
        for (offset, c) in block.char_indices() {
            // A SQL comment runs to the end of its line, or to `*/`, and may hold an apostrophe.
            if comment {
                comment = c != '\n';
                continue;
            }
            if block_comment {
                block_comment = !(c == '/' && block[..offset].ends_with('*'));
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
                    '/' if block[offset..].starts_with("/*") => block_comment = true,
                    '\'' | '"' => quote = Some(c),
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            let end = self.at + offset;
                            self.at = end + 1;
                            let blank = |c: char| matches!(c, ' ' | '\t' | '\r' | '\x0c');
                            let sql = self.text[start..end].trim_start_matches(blank);
                            return Ok(sql.trim_end_matches(blank).to_string());
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
        let rest = self.rest();
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

    /// The rest of `barrier N workers, R rounds`.
    fn barrier(&mut self, line: usize) -> Result<Barrier, SpecError> {
        let words = self.quoted_words(line)?;
        let count = |word: &str| word.parse::<usize>().ok();
        match &words[..] {
            [n, w, comma, r, rounds]
                if w == "workers" && comma == "," && (rounds == "rounds" || rounds == "round") =>
            {
                match (count(n), count(r)) {
                    (Some(workers), Some(rounds)) if workers >= 2 && rounds >= 1 => {
                        Ok(Barrier { workers, rounds })
                    }
                    _ => Err(error(
                        line,
                        format!(
                            "`barrier` takes 2 workers or more and 1 round or more, not `{n}` \
                             and `{r}`: one worker races no one"
                        ),
                    )),
                }
            }
            _ => Err(error(
                line,
                "`barrier` reads `barrier N workers, R rounds`, as in `barrier 2 \
                 workers, 240 rounds`"
                    .into(),
            )),
        }
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

/// A character of a plain name.
fn plain_char(c: char) -> bool {
    !(c.is_whitespace() || "{}(),#\"".contains(c))
}
