//! A database schema as the ordered migrations of one or more directories: the workbook's base
//! schema (`migrations/…`) followed by the student's own change (`exercises/NN-…/migrations`).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use sqlx::migrate::Migrator;

use crate::error::KitError;

#[derive(Debug, Clone)]
pub struct Schema {
    dirs: Vec<PathBuf>,
}

impl Schema {
    /// The migrations of every directory, applied in version order. Versions must be unique
    /// across directories: the base schema numbers its files from 0001, a lesson's own change
    /// from 0100.
    pub fn from_dirs<P: Into<PathBuf>>(dirs: impl IntoIterator<Item = P>) -> Schema {
        Schema {
            dirs: dirs.into_iter().map(Into::into).collect(),
        }
    }

    /// Read from disk on every run, not embedded at compile time: a student who edits a
    /// migration and runs the tests again must get the new schema, with no rebuild to forget.
    pub(crate) async fn migrator(&self) -> Result<Migrator, KitError> {
        let mut migrations = Vec::new();
        for dir in &self.dirs {
            let loaded =
                Migrator::new(dir.as_path())
                    .await
                    .map_err(|source| KitError::Migrate {
                        dir: dir.display().to_string(),
                        source,
                    })?;
            migrations.extend(loaded.iter().cloned());
        }
        migrations.sort_by_key(|migration| migration.version);
        if let Some(pair) = migrations.windows(2).find(|w| w[0].version == w[1].version) {
            return Err(KitError::MigrationFailed {
                file: self.file_of(pair[0].version),
                error: format!(
                    "two migrations have version {}; the base schema and a lesson's own \
                     migrations must number their files differently",
                    pair[0].version
                ),
            });
        }
        Ok(Migrator::with_migrations(migrations))
    }

    /// The file that holds migration `version`, for error messages ("0100_key.sql" → 100).
    pub(crate) fn file_of(&self, version: i64) -> String {
        for dir in &self.dirs {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
                if digits.parse::<i64>() == Ok(version) {
                    return entry.path().display().to_string();
                }
            }
        }
        format!("migration {version}")
    }

    /// Names the template database: a changed migration yields a new template, never a stale one.
    pub(crate) fn fingerprint(migrator: &Migrator) -> String {
        let mut hasher = DefaultHasher::new();
        for migration in migrator.iter() {
            migration.version.hash(&mut hasher);
            migration.checksum.hash(&mut hasher);
        }
        format!("{:016x}", hasher.finish())
    }
}
