//! Turning command-line and pipeline inputs (files, directories, glob patterns) into a sorted list of archive
//! files, so every command accepts the same spellings.

use crate::formats::ArchiveKind;
use std::collections::{HashMap, HashSet};
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
    #[error("no .era1, .ere, .erae or .era files found in {0}")]
    Empty(String),
}

/// Expands files, directories (their `.era1`/`.era` files, recursively) and glob patterns into a sorted list
/// of archive files, each file once. A file named explicitly is kept whatever its extension.
///
/// Files are de-duplicated by their real path (symlinks resolved), so a file reached through a symlink, a
/// second spelling or an overlapping input is verified and exported once, under a path that carries its own
/// file name (output names and the manifest come from it), else the first of its paths in sorted order. A directory is walked once however many symlinks lead to it, and a symlink back to one of
/// its own ancestors (a loop) is not followed; a `tracing` warning names it.
pub fn expand(inputs: &[impl AsRef<str>]) -> Result<Vec<PathBuf>, InputError> {
    let mut walk = Walk::default();
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
                walk.add(&p)?;
            }
            if !any {
                return Err(InputError::Empty(s.into()));
            }
        } else {
            let p = Path::new(s);
            if !p.exists() {
                return Err(InputError::Missing(s.into()));
            }
            walk.add(p)?;
        }
    }
    let mut found = walk.files;
    found.sort();
    found.dedup();
    // One entry per real file: the path that carries the file's own name (not a symlink's), else the first
    // in sorted order. A path that cannot be resolved (a dangling symlink) is kept as it is, and fails when
    // it is opened.
    let mut by_real: HashMap<PathBuf, usize> = HashMap::new();
    let mut out: Vec<PathBuf> = Vec::with_capacity(found.len());
    for p in found {
        let real = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
        match by_real.get(&real) {
            None => {
                by_real.insert(real, out.len());
                out.push(p);
            }
            Some(&i) => {
                if out[i].file_name() != real.file_name() && p.file_name() == real.file_name() {
                    out[i] = p;
                }
            }
        }
    }
    out.sort();
    if out.is_empty() {
        let all: Vec<&str> = inputs.iter().map(|i| i.as_ref()).collect();
        return Err(InputError::Empty(all.join(" ")));
    }
    Ok(out)
}

/// The files found so far, and the real paths of the directories walked (so none is walked twice).
#[derive(Default)]
struct Walk {
    files: Vec<PathBuf>,
    dirs: HashSet<PathBuf>,
    /// Real paths of the directories being walked, outermost first: a symlink to one of them is a loop.
    ancestors: Vec<PathBuf>,
}

impl Walk {
    fn add(&mut self, p: &Path) -> Result<(), InputError> {
        if !p.is_dir() {
            self.files.push(p.to_path_buf());
            return Ok(());
        }
        let io = |source| InputError::Io {
            path: p.display().to_string(),
            source,
        };
        let real = std::fs::canonicalize(p).map_err(io)?;
        if self.ancestors.contains(&real) {
            tracing::warn!(
                path = %p.display(),
                target = %real.display(),
                "symlink loop: this directory leads back to one it is inside; not followed"
            );
            return Ok(());
        }
        if !self.dirs.insert(real.clone()) {
            return Ok(()); // Walked already, through another path.
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(io)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(io)?;
        entries.sort();
        self.ancestors.push(real);
        let walked = entries.iter().try_for_each(|path| {
            if path.is_dir() {
                self.add(path)
            } else {
                if ArchiveKind::of(path).is_some() {
                    self.files.push(path.clone());
                }
                Ok(())
            }
        });
        self.ancestors.pop();
        walked
    }
}
