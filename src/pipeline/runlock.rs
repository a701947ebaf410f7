//! The run lock of an output directory, so scheduled runs never interleave: `OUT/_eraflow/run.lock`, an
//! advisory `flock` held for the whole run and released when the process ends (also when it is killed).
//!
//! An unsharded run holds it exclusively. A run of shard K/N holds it shared and `run.shard-K-of-N.lock`
//! exclusively, so the shards of an Indexed Job run side by side while a second run of the same shard, or an
//! unsharded run, waits. The Ray driver holds `run.lock` exclusively and its tasks take no lock (`lock =
//! "none"`). A lock on a remote output (object store) belongs to the output store; this one is local-file only.

use super::shard::Shard;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// What a run does about the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LockMode {
    /// Wait for a run holding it to finish (the default).
    #[default]
    Wait,
    /// Fail at once (exit 2, "in use") when another run holds it.
    NoWait,
    /// Take no lock: the caller holds it (a Ray task, whose driver does).
    None,
}

impl std::str::FromStr for LockMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "wait" => Ok(LockMode::Wait),
            "no-wait" => Ok(LockMode::NoWait),
            "none" => Ok(LockMode::None),
            _ => Err(format!("lock '{s}': wait, no-wait or none")),
        }
    }
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another run holds it and the job said not to wait.
    #[error("{}: in use by another run (lock = \"no-wait\")", .0.display())]
    InUse(PathBuf),
    /// The lock file cannot be created or locked.
    #[error("{}", .path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// Held locks; dropping it releases them.
#[derive(Debug)]
pub struct RunLock {
    _files: Vec<File>,
}

fn open(path: &Path) -> Result<File, LockError> {
    let io = |source| LockError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(io)
}

fn take(path: &Path, shared: bool, mode: LockMode) -> Result<File, LockError> {
    let f = open(path)?;
    let tried = if shared {
        f.try_lock_shared()
    } else {
        f.try_lock()
    };
    match tried {
        Ok(()) => Ok(f),
        Err(TryLockError::WouldBlock) if mode == LockMode::NoWait => {
            Err(LockError::InUse(path.to_path_buf()))
        }
        Err(TryLockError::WouldBlock) => {
            tracing::warn!(lock = %path.display(), "another run holds the lock; waiting for it");
            eprintln!("waiting for {} (another run holds it)", path.display());
            let r = if shared { f.lock_shared() } else { f.lock() };
            r.map_err(|source| LockError::Io {
                path: path.to_path_buf(),
                source,
            })?;
            Ok(f)
        }
        Err(TryLockError::Error(source)) => Err(LockError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The lock file of `out`.
pub fn path(out: &Path) -> PathBuf {
    out.join("_eraflow").join("run.lock")
}

impl RunLock {
    /// Takes the run lock of `out` for a run of `shard` (all inputs when `None`); `Ok(None)` for
    /// [`LockMode::None`].
    pub fn acquire(
        out: &Path,
        shard: Option<Shard>,
        mode: LockMode,
    ) -> Result<Option<RunLock>, LockError> {
        if mode == LockMode::None {
            return Ok(None);
        }
        let main = path(out);
        let files = match shard {
            None => vec![take(&main, false, mode)?],
            Some(s) => {
                let own = out
                    .join("_eraflow")
                    .join(format!("run.shard-{}-of-{}.lock", s.index, s.count));
                // The shard's own lock first: a second run of this shard waits there, not holding `run.lock`.
                let own = take(&own, false, mode)?;
                vec![own, take(&main, true, mode)?]
            }
        };
        Ok(Some(RunLock { _files: files }))
    }
}
