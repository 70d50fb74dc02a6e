//! The catalog is built from the lessons' manifests, `lessons/NN-key/lesson.toml`: this script
//! reads every one and writes `LESSONS` and the Kafka track's lists into the crate, so a new
//! lesson is its folder and never a line here. A manifest that cannot be read stops the build,
//! naming its file and what is wrong with it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, Table};

fn main() {
    let lessons = (Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize())
    .expect("the catalog sits in lessons/support/");
    // A new lesson's folder changes the listing of lessons/, which Cargo watches.
    println!("cargo:rerun-if-changed={}", lessons.display());
    let mut manifests = Vec::new();
    for entry in std::fs::read_dir(&lessons).expect("lessons/ is readable") {
        let path = entry.expect("lessons/ is readable").path();
        let folder = path.file_name().unwrap().to_string_lossy().into_owned();
        let manifest = path.join("lesson.toml");
        if folder.starts_with(|c: char| c.is_ascii_digit()) {
            println!("cargo:rerun-if-changed={}", manifest.display());
            manifests.push((folder, manifest));
        }
    }
    manifests.sort();
    let mut lessons_rs = String::from("pub const LESSONS: &[Lesson] = &[\n");
    let mut kafka_rs = String::from("pub const KAFKA_TRACK: &[Kafka] = &[\n");
    for (folder, manifest) in &manifests {
        let read = read(folder, manifest).unwrap_or_else(|why| {
            panic!("\n{}: {why}\n", manifest.display());
        });
        lessons_rs.push_str(&read.0);
        kafka_rs.push_str(&read.1);
    }
    lessons_rs.push_str("];\n");
    kafka_rs.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("lessons.rs");
    std::fs::write(out, lessons_rs + &kafka_rs).expect("OUT_DIR is writable");
}

/// One manifest, as the `Lesson` it lists and, for a lesson with a Kafka track, its `Kafka`.
fn read(folder: &str, manifest: &Path) -> Result<(String, String), String> {
    let text =
        std::fs::read_to_string(manifest).map_err(|e| format!("{e} (every lesson has one)"))?;
    let doc: DocumentMut = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    let (number, key) = (folder.split_once('-'))
        .filter(|(n, k)| n.len() == 2 && n.bytes().all(|b| b.is_ascii_digit()) && !k.is_empty())
        .ok_or(
            "a lesson's folder is its two-digit number, a dash and its key (01-check-then-act)",
        )?;
    only(
        doc.as_table(),
        &["title", "domain", "schema", "fails_with", "about", "kafka"],
    )?;
    let domain = match doc.get("domain") {
        Some(_) => string(doc.as_table(), "domain")?,
        None => folder.to_string(),
    };
    let mut lesson = String::from("    Lesson {\n");
    for (field, value) in [
        ("number", number.to_string()),
        ("key", key.to_string()),
        ("title", string(doc.as_table(), "title")?),
        ("folder", folder.to_string()),
        ("domain", domain),
        ("schema", string(doc.as_table(), "schema")?),
        ("intended_failure", string(doc.as_table(), "fails_with")?),
        ("about", string(doc.as_table(), "about")?),
    ] {
        writeln!(lesson, "        {field}: {value:?},").unwrap();
    }
    lesson.push_str("    },\n");
    let Some(kafka) = doc.get("kafka") else {
        return Ok((lesson, String::new()));
    };
    let kafka = kafka.as_table().ok_or("`kafka` is a table, [kafka]")?;
    only(kafka, &["code", "caught"])?;
    let mut track = format!(
        "    Kafka {{\n        lesson: {number:?},\n        code: {:?},\n        caught: &[\n",
        string(kafka, "code")?
    );
    let caught = (kafka.get("caught").and_then(Item::as_array_of_tables))
        .ok_or("[kafka] names the tests its shipped exercise fails, each a [[kafka.caught]]")?;
    for test in caught {
        only(test, &["test", "says"])?;
        let (name, says) = (string(test, "test")?, string(test, "says")?);
        writeln!(
            track,
            "            KafkaCaught {{ test: {name:?}, says: {says:?} }},"
        )
        .unwrap();
    }
    track.push_str("        ],\n    },\n");
    Ok((lesson, track))
}

fn string(table: &Table, key: &str) -> Result<String, String> {
    match table.get(key) {
        None => Err(format!("it has no `{key}`")),
        Some(item) => (item.as_str().map(str::to_string))
            .filter(|text| !text.trim().is_empty())
            .ok_or(format!("`{key}` is a string, and not empty")),
    }
}

/// Refuses a key the catalog does not know: a misspelt `fails_with` would otherwise be a
/// missing one, reported as such, and the misspelling never named.
fn only(table: &Table, known: &[&str]) -> Result<(), String> {
    match table.iter().find(|(key, _)| !known.contains(key)) {
        Some((key, _)) => Err(format!(
            "it has `{key}`, which is none of {}",
            known.join(", ")
        )),
        None => Ok(()),
    }
}
