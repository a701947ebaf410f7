//! An opened archive of any kind ([`Archive`]): the top of `formats/`, over each format's reader.

use super::e2store::MappedArchive;
use super::era::EraFile;
use super::error::FormatError;
use super::execution::ExecutionArchive;
use super::name::{ArchiveKind, Holds};
use std::path::Path;

/// An opened (memory-mapped) archive of any kind.
pub enum Archive {
    /// Execution history: an era1 or ere file, read by one block path.
    Execution(ExecutionArchive),
    /// A beacon-chain archive.
    Era(EraFile),
}

impl Archive {
    /// Opens `path` as the kind it is read as ([`ArchiveKind::read_as`]: its extension's, anything else era1).
    pub fn open(path: &Path) -> Result<Archive, FormatError> {
        match ArchiveKind::read_as(path) {
            ArchiveKind::Era => EraFile::open(path).map(Archive::Era),
            _ => ExecutionArchive::open(path).map(Archive::Execution),
        }
    }

    /// What the file holds (see [`Holds`]).
    pub fn holds(&self) -> Holds {
        match self {
            Archive::Execution(f) => f.holds(),
            Archive::Era(_) => ArchiveKind::Era.holds(),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        match self {
            Archive::Execution(f) => f.path(),
            Archive::Era(f) => f.path(),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> ArchiveKind {
        match self {
            Archive::Execution(f) => f.kind(),
            Archive::Era(_) => ArchiveKind::Era,
        }
    }

    /// The whole mapped file.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Archive::Execution(f) => f.bytes(),
            Archive::Era(f) => f.bytes(),
        }
    }

    /// Fails when the file changed since it was opened (see [`super::mapped`]).
    pub fn check_unchanged(&self) -> Result<(), FormatError> {
        match self {
            Archive::Execution(f) => f.check_unchanged(),
            Archive::Era(f) => f.check_unchanged(),
        }
    }

    /// Blocks in the file: execution blocks, or the non-empty slots of an era file.
    pub fn block_count(&self) -> u64 {
        match self {
            Archive::Execution(f) => f.block_count(),
            Archive::Era(f) => f
                .block_index()
                .map_or(0, |i| i.offsets.iter().flatten().count() as u64),
        }
    }
}
