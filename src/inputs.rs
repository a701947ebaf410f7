//! Turning command-line and pipeline inputs (files, directories, glob patterns) into a sorted list of archive
//! files, so every command accepts the same spellings.

use crate::formats::ArchiveKind;
use std::path::{Path, PathBuf};

/// Why inputs could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// An input names nothing on disk.
    #[error("{0}: no such file or directory")]
    Missing(String),
    /// A directory or glob match could not be read.
    #[error("{path}")]
    Io {
        /// The path being read.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A glob pattern does not parse.
    #[error("bad glob pattern '{pattern}'")]
    Pattern {
        /// The pattern as given.
        pattern: String,
        /// What the glob parser said.
        #[source]
        source: glob::PatternError,
    },
    /// The inputs select no archive file.
    #[error("no .era1 or .era files found in {0}")]
    Empty(String),
}

/// Expands files, directories (their `.era1`/`.era` files, recursively) and glob patterns into a sorted,
/// de-duplicated list of archive files. A file named explicitly is kept whatever its extension.
pub fn expand(inputs: &[impl AsRef<str>]) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    for input in inputs {
        let s = input.as_ref();
        if s.contains(['*', '?', '[']) {
            let paths = glob::glob(s).map_err(|source| InputError::Pattern {
                pattern: s.into(),
                source,
            })?;
            let mut any = false;
            for p in paths {
                let p = p.map_err(|e| InputError::Io {
                    path: e.path().display().to_string(),
                    source: e.into(),
                })?;
                any = true;
                add(&p, &mut out)?;
            }
            if !any {
                return Err(InputError::Empty(s.into()));
            }
        } else {
            let p = Path::new(s);
            if !p.exists() {
                return Err(InputError::Missing(s.into()));
            }
            add(p, &mut out)?;
        }
    }
    out.sort();
    out.dedup();
    if out.is_empty() {
        let all: Vec<&str> = inputs.iter().map(|i| i.as_ref()).collect();
        return Err(InputError::Empty(all.join(" ")));
    }
    Ok(out)
}

fn add(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), InputError> {
    if p.is_dir() {
        let rd = std::fs::read_dir(p).map_err(|source| InputError::Io {
            path: p.display().to_string(),
            source,
        })?;
        for entry in rd {
            let entry = entry.map_err(|source| InputError::Io {
                path: p.display().to_string(),
                source,
            })?;
            let path = entry.path();
            if path.is_dir() {
                add(&path, out)?;
            } else if ArchiveKind::of(&path).is_some() {
                out.push(path);
            }
        }
    } else {
        out.push(p.to_path_buf());
    }
    Ok(())
}
