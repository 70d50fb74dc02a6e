//! `cargo workbook watch`: check the current exercise on every save, until it passes and the
//! student moves on. Keys: `q` quit, `h` hint, `n` next lesson, Enter check again.

use std::path::Path;
use std::process::ExitCode;
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use console::style;
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::terminal;
use notify_debouncer_mini::notify::RecursiveMode;
use notify_debouncer_mini::{DebounceEventResult, new_debouncer};

use crate::catalog::{LESSONS, Lesson};
use crate::commands;
use crate::progress::fingerprint;

/// An editor's save arrives as several events (write a temporary file, rename it, touch the
/// directory); this long a quiet spell makes them one re-check.
const DEBOUNCE: Duration = Duration::from_millis(300);

/// How often the loop looks at the keyboard between file events.
const KEY_POLL: Duration = Duration::from_millis(100);

enum Action {
    Check,
    Hint,
    MoveOn,
    Quit,
}

pub fn watch(root: &Path, start: &'static Lesson) -> Result<ExitCode, String> {
    let (saved, saves) = channel();
    let mut debouncer = new_debouncer(DEBOUNCE, move |events: DebounceEventResult| {
        if events.is_ok() {
            let _ = saved.send(());
        }
    })
    .map_err(|e| format!("could not watch the exercise's files: {e}"))?;
    let mut lesson = start;
    let mut watched = lesson.exercise_dir(root);
    debouncer
        .watcher()
        .watch(&watched, RecursiveMode::Recursive)
        .map_err(|e| format!("could not watch {}: {e}", watched.display()))?;

    let mut action = Action::Check;
    loop {
        match action {
            Action::Quit => return Ok(ExitCode::SUCCESS),
            Action::Check => {
                println!(
                    "{}",
                    style(format!("── lesson {}: {}", lesson.number, lesson.title)).bold()
                );
                commands::check(root, lesson.number, false, crate::Format::Text)?;
            }
            Action::Hint => {
                commands::hint(root, lesson.number)?;
            }
            Action::MoveOn => {
                let at = LESSONS
                    .iter()
                    .position(|l| l.key == lesson.key)
                    .unwrap_or(0);
                let Some(next) = LESSONS.get(at + 1) else {
                    println!("That was the last lesson.");
                    return Ok(ExitCode::SUCCESS);
                };
                let _ = debouncer.watcher().unwatch(&watched);
                lesson = next;
                watched = lesson.exercise_dir(root);
                debouncer
                    .watcher()
                    .watch(&watched, RecursiveMode::Recursive)
                    .map_err(|e| format!("could not watch {}: {e}", watched.display()))?;
                action = Action::Check;
                continue;
            }
        }
        println!(
            "{}",
            style(format!(
                "watching exercises/{} · save to check again · q quit · h hint · n next lesson · \
                 Enter check now",
                lesson.folder
            ))
            .dim()
        );
        action = wait(&saves, &watched)?;
    }
}

/// Waits for a save or a key. Raw mode only while waiting, so that everything printed while
/// checking looks as usual.
///
/// A file event is not yet a save: building and testing the exercise opens its files too, and
/// some watchers report that. Only a change of the files' contents counts.
fn wait(saves: &Receiver<()>, watched: &Path) -> Result<Action, String> {
    let checked = fingerprint(&[watched.to_path_buf()]);
    terminal::enable_raw_mode().map_err(|e| {
        format!("watch needs an interactive terminal ({e}); use `cargo workbook check NN` instead")
    })?;
    let next = loop {
        if saves.try_recv().is_ok() {
            while saves.try_recv().is_ok() {}
            if fingerprint(&[watched.to_path_buf()]) != checked {
                break Ok(Action::Check);
            }
        }
        match event::poll(KEY_POLL) {
            Ok(false) => continue,
            Ok(true) => {}
            Err(e) => break Err(format!("could not read the keyboard: {e}")),
        }
        if let Ok(Event::Key(key)) = event::read()
            && let Some(next) = meaning(key)
        {
            break Ok(next);
        }
    };
    let _ = terminal::disable_raw_mode();
    next
}

fn meaning(key: KeyEvent) -> Option<Action> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    match key.code {
        KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => Some(Action::Quit),
        KeyCode::Char('q') | KeyCode::Esc => Some(Action::Quit),
        KeyCode::Char('h') => Some(Action::Hint),
        KeyCode::Char('n') => Some(Action::MoveOn),
        KeyCode::Enter => Some(Action::Check),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn keys_mean_quit_hint_move_on_or_check() {
        assert!(matches!(
            meaning(press(KeyCode::Char('q'))),
            Some(Action::Quit)
        ));
        assert!(matches!(meaning(press(KeyCode::Esc)), Some(Action::Quit)));
        assert!(matches!(
            meaning(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        ));
        assert!(matches!(
            meaning(press(KeyCode::Char('h'))),
            Some(Action::Hint)
        ));
        assert!(matches!(
            meaning(press(KeyCode::Char('n'))),
            Some(Action::MoveOn)
        ));
        assert!(matches!(
            meaning(press(KeyCode::Enter)),
            Some(Action::Check)
        ));
        assert!(meaning(press(KeyCode::Char('x'))).is_none());
    }
}
