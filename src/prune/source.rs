//! Where a prune's inputs come from whole: local files where they are, remote ones fetched in plan order
//! (the pipeline's implementation of [`InputSource`]).

use super::error::PruneError;
use std::path::{Path, PathBuf};

/// A full local copy of an input, held until dropped (a remote file fetched into a cache leaves it then).
pub struct Held {
    path: PathBuf,
    _guard: Option<Box<dyn Send>>,
}

impl Held {
    /// A local file, used where it is.
    pub fn local(path: &Path) -> Held {
        Held {
            path: path.to_path_buf(),
            _guard: None,
        }
    }

    /// Where the copy is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A copy at `path` that lasts as long as `guard`.
    pub fn guarded(path: &Path, guard: Box<dyn Send>) -> Held {
        Held {
            path: path.to_path_buf(),
            _guard: Some(guard),
        }
    }
}

/// Where the full copies of a prune's inputs come from. The inputs handed to [`super::run_from`] need only hold
/// their index (what the plan reads); each selected one is asked for whole when its turn comes.
pub trait InputSource {
    /// The inputs the plan selected, in the order [`InputSource::open`] will be asked for them. May be called
    /// again: each call replaces the queue (a rolling window reads the files around its cut-off before the
    /// plan is made).
    fn planned(&mut self, paths: &[PathBuf]) -> Result<(), PruneError>;
    /// A full copy of the input `path`.
    fn open(&mut self, path: &Path) -> Result<Held, PruneError>;
}

/// Local inputs: whole already.
pub(super) struct LocalFiles;

impl InputSource for LocalFiles {
    fn planned(&mut self, _: &[PathBuf]) -> Result<(), PruneError> {
        Ok(())
    }
    fn open(&mut self, path: &Path) -> Result<Held, PruneError> {
        Ok(Held::local(path))
    }
}
