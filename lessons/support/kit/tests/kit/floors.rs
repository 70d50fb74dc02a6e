//! The floors `lib.rs` states, held against the source: a room uses its own floor and those
//! below it, never one above. A `crate::` path that runs back up fails here, with its file and
//! line, so the layering a maintainer reads in `lib.rs` is the one the code has.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Lowest first; the rooms of one floor may use each other. As `lib.rs` states them.
const FLOORS: &[&[&str]] = &[&["error", "words"], &["servers"], &["engine", "by_hand"]];

fn floor(room: &str) -> Option<usize> {
    FLOORS.iter().position(|rooms| rooms.contains(&room))
}

/// The identifier `s` starts with.
fn ident(s: &str) -> &str {
    let s = s.trim_start();
    &s[..s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len())]
}

/// The room each name `lib.rs` re-exports comes from (`rounds` → `words`), so that
/// `crate::rounds` counts as that room's.
fn reexported(lib: &str) -> HashMap<String, String> {
    let code: Vec<&str> = (lib.lines())
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect();
    let mut rooms = HashMap::new();
    for path in (code.join("\n").split(';')).filter_map(|s| s.trim().strip_prefix("pub use ")) {
        let Some((room, rest)) = path.split_once("::") else {
            continue;
        };
        let names = rest.split(|c: char| !(c.is_alphanumeric() || c == '_'));
        for name in names.filter(|n| !n.is_empty()) {
            rooms.insert(name.to_string(), room.to_string());
        }
    }
    rooms
}

/// The first segment of each `crate::` path on the line, each item of a `crate::{…}` group
/// included.
fn targets(line: &str) -> Vec<&str> {
    (line.match_indices("crate::"))
        .flat_map(|(at, m)| {
            let rest = &line[at + m.len()..];
            match rest.strip_prefix('{') {
                Some(group) => (group.split('}').next().unwrap_or("").split(','))
                    .map(ident)
                    .collect(),
                None => vec![ident(rest)],
            }
        })
        .collect()
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

#[test]
fn no_room_uses_a_room_on_a_higher_floor() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let reexported = reexported(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut up = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap();
        // lib.rs is the roof, which re-exports every room; bin/ holds crates of their own.
        if first == "lib.rs" || first == "bin" {
            continue;
        }
        let room = first.trim_end_matches(".rs");
        let own = floor(room).unwrap_or_else(|| {
            panic!(
                "src/{} is in no floor: add `{room}` to FLOORS here and to lib.rs's docs",
                rel.display()
            )
        });
        for (n, line) in std::fs::read_to_string(file).unwrap().lines().enumerate() {
            // A doc link is no dependency.
            if line.trim_start().starts_with("//") {
                continue;
            }
            for target in targets(line) {
                let target = match (floor(target), reexported.get(target)) {
                    (Some(_), _) => target,
                    (None, Some(room)) => room.as_str(),
                    (None, None) => continue,
                };
                if floor(target).unwrap() > own {
                    let at = format!("src/{}:{}", rel.display(), n + 1);
                    up.push(format!("{at}: {room} uses {target}: {}", line.trim()));
                }
            }
        }
    }
    assert!(
        up.is_empty(),
        "these run back up the floors (lowest first: {FLOORS:?}):\n{}",
        up.join("\n")
    );
}
