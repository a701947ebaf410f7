//! Execution archives: era1 and ere files hold the same things — each block's header, body, receipts (full in
//! era1, slim in ere) and total difficulty — in different record layouts. [`ExecutionArchive`] opens either and
//! hands out one [`BlockRecords`] per block, so everything above this layer (verification, datasets, prune)
//! has one block path, and the record layout is the only thing each kind owns.

use super::e2store::MappedArchive;
use super::era1::Era1File;
use super::ere::EreFile;
use super::error::FormatError;
use super::name::{ArchiveKind, ArchiveName, Holds};
use std::path::Path;

pub use super::block::{
    decompress, is_slim_receipts, total_difficulty, BlockDecoders, BlockRecords, MAX_BODY_BYTES,
    MAX_HEADER_BYTES, MAX_PROOF_BYTES, MAX_RECEIPTS_BYTES,
};
pub use super::name::BLOCKS_PER_ERA;

/// An opened era1 or ere file.
pub enum ExecutionArchive {
    /// A pre-merge era1 file.
    Era1(Era1File),
    /// An ere file (pre-merge, post-merge or merge-transition).
    Ere(EreFile),
}

impl ExecutionArchive {
    /// Opens `path` as the execution kind its extension names (`.ere`/`.erae`, anything else as era1).
    pub fn open(path: &Path) -> Result<ExecutionArchive, FormatError> {
        match ArchiveKind::read_as(path) {
            ArchiveKind::Ere => EreFile::open(path).map(ExecutionArchive::Ere),
            _ => Era1File::open(path).map(ExecutionArchive::Era1),
        }
    }

    /// The first and last block of the archive at `path` from its index alone (no block record is read: a
    /// remote file's skeleton, its first and last bytes, is enough).
    pub fn block_span(path: &Path) -> Result<(u64, u64), FormatError> {
        match ArchiveKind::read_as(path) {
            ArchiveKind::Ere => super::ere::read::block_span(path),
            _ => Era1File::open(path).map(|f| (f.first_block(), f.last_block())),
        }
    }

    /// [`ExecutionArchive::open`] over `bytes` copied into memory (fuzzing, tests).
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<ExecutionArchive, FormatError> {
        match ArchiveKind::read_as(path) {
            ArchiveKind::Ere => EreFile::from_bytes(path, bytes).map(ExecutionArchive::Ere),
            _ => Era1File::from_bytes(path, bytes).map(ExecutionArchive::Era1),
        }
    }

    /// `era1` or `ere`.
    pub fn kind(&self) -> ArchiveKind {
        match self {
            ExecutionArchive::Era1(_) => ArchiveKind::Era1,
            ExecutionArchive::Ere(_) => ArchiveKind::Ere,
        }
    }

    /// What the file holds: an ere file's components are those its index lists.
    pub fn holds(&self) -> Holds {
        match self {
            ExecutionArchive::Era1(_) => ArchiveKind::Era1.holds(),
            ExecutionArchive::Ere(f) => ArchiveKind::Ere.holds().with_profile(f.profile()),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        // A match, not a `&dyn MappedArchive`: verification asks for the path on every block.
        match self {
            ExecutionArchive::Era1(f) => f.path(),
            ExecutionArchive::Ere(f) => f.path(),
        }
    }

    /// The whole file as bytes (the memory map).
    pub fn bytes(&self) -> &[u8] {
        match self {
            ExecutionArchive::Era1(f) => f.bytes(),
            ExecutionArchive::Ere(f) => f.bytes(),
        }
    }

    /// Fails when the file changed since it was opened (see [`super::mapped`]).
    pub fn check_unchanged(&self) -> Result<(), FormatError> {
        match self {
            ExecutionArchive::Era1(f) => f.check_unchanged(),
            ExecutionArchive::Ere(f) => f.check_unchanged(),
        }
    }

    /// First block number.
    pub fn first_block(&self) -> u64 {
        match self {
            ExecutionArchive::Era1(f) => f.first_block(),
            ExecutionArchive::Ere(f) => f.first_block(),
        }
    }

    /// Last block number.
    pub fn last_block(&self) -> u64 {
        self.first_block() + self.block_count() - 1
    }

    /// Number of blocks (at least 1: an index of none is refused when the file is opened).
    pub fn block_count(&self) -> u64 {
        match self {
            ExecutionArchive::Era1(f) => f.block_count(),
            ExecutionArchive::Ere(f) => f.block_count(),
        }
    }

    /// The parsed file name, when it is canonical.
    pub fn name(&self) -> Option<&ArchiveName> {
        match self {
            ExecutionArchive::Era1(f) => f.name(),
            ExecutionArchive::Ere(f) => f.name(),
        }
    }

    /// The root and offset of the `Accumulator` record: always in era1, only over pre-merge blocks in ere.
    pub fn accumulator(&self) -> Option<(&[u8; 32], u64)> {
        match self {
            ExecutionArchive::Era1(f) => Some((f.accumulator_root(), f.accumulator_offset())),
            ExecutionArchive::Ere(f) => f.accumulator(),
        }
    }

    /// Offset of the block index record (the `BlockIndex` of era1, the `DynamicBlockIndex` of ere).
    pub fn index_offset(&self) -> u64 {
        match self {
            ExecutionArchive::Era1(f) => f.index().record_offset,
            ExecutionArchive::Ere(f) => f.index().record_offset,
        }
    }

    /// Offset of the `i`-th block's header record, per the index (0 when the entry is unusable: the block's own
    /// read then says why).
    pub fn header_offset(&self, i: u64) -> u64 {
        match self {
            ExecutionArchive::Era1(f) => f.index().offsets.get(i as usize).copied().unwrap_or(0),
            ExecutionArchive::Ere(f) => f.header_offset(i).unwrap_or(0),
        }
    }

    /// The records of the `i`-th block of the file (0-based), each checked to be of its type.
    pub fn block(&self, i: u64) -> Result<BlockRecords<'_>, FormatError> {
        match self {
            ExecutionArchive::Era1(f) => f.block(i).map(BlockRecords::from),
            ExecutionArchive::Ere(f) => f.block(i),
        }
    }

    /// The `i`-th block's bytes in the file, for cutting work into chunks of similar size: era1, its tuple (to
    /// the next one, the last to the accumulator); ere, its header, body and receipts records. A corrupt index
    /// only moves chunk boundaries; verification reports it.
    pub fn block_size(&self, i: u64) -> u64 {
        match self {
            ExecutionArchive::Era1(f) => {
                let offsets = &f.index().offsets;
                let at = offsets.get(i as usize).copied().unwrap_or(0);
                let next = offsets
                    .get(i as usize + 1)
                    .copied()
                    .unwrap_or_else(|| f.accumulator_offset());
                next.saturating_sub(at)
            }
            ExecutionArchive::Ere(f) => f.block_size(i),
        }
    }
}
