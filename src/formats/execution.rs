//! Execution archives: era1 and ere files hold the same things — each block's header, body, receipts (full in
//! era1, slim in ere) and total difficulty — in different record layouts. [`ExecutionArchive`] opens either and
//! hands out one [`BlockRecords`] per block, so everything above this layer (verification, datasets, prune)
//! has one block path, and the record layout is the only thing each kind owns.

use super::archive::{ArchiveKind, ArchiveName};
use super::e2store::{Record, RecordType};
use super::era1::Era1File;
use super::ere::EreFile;
use super::error::FormatError;
use std::path::Path;

/// Blocks per era1 or ere file: the accumulator's list limit, and `SLOTS_PER_HISTORICAL_ROOT` on the beacon
/// chain. A file's first block is `era * 8192`.
pub const BLOCKS_PER_ERA: u64 = 8192;

/// One block's records, as slices of the map (still compressed).
#[derive(Debug, Clone, Copy)]
pub struct BlockRecords<'a> {
    /// The block number (the index's starting number plus the block's position).
    pub number: u64,
    /// `CompressedHeader`: snappy-framed RLP of the header.
    pub header: Record<'a>,
    /// `CompressedBody`: snappy-framed RLP of the body `[transactions, ommers(, withdrawals)]`.
    pub body: Record<'a>,
    /// The block's receipts: `CompressedReceipts` (era1: full receipts with blooms) or
    /// `CompressedSlimReceipts` (ere: `[tx-type, post-state-or-status, cumulative-gas, logs]`, no bloom); the
    /// record's type says which. `None` in an ere file of the `noreceipts` profile.
    pub receipts: Option<Record<'a>>,
    /// `TotalDifficulty` after this block, 32 bytes little-endian (checked to be 32 bytes). Always in era1;
    /// in ere only over pre-merge and merge-transition eras.
    pub total_difficulty: Option<Record<'a>>,
    /// `Proof` (ere, default profile): the block header's Portal proof.
    pub proof: Option<Record<'a>>,
}

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
        match ArchiveKind::of(path) {
            Some(ArchiveKind::Ere) => EreFile::open(path).map(ExecutionArchive::Ere),
            _ => Era1File::open(path).map(ExecutionArchive::Era1),
        }
    }

    /// [`ExecutionArchive::open`] over `bytes` copied into memory (fuzzing, tests).
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<ExecutionArchive, FormatError> {
        match ArchiveKind::of(path) {
            Some(ArchiveKind::Ere) => EreFile::from_bytes(path, bytes).map(ExecutionArchive::Ere),
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

    /// The file's path.
    pub fn path(&self) -> &Path {
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

/// Decodes a TotalDifficulty record (32 bytes little-endian).
pub fn total_difficulty(record: &Record<'_>) -> alloy_primitives::U256 {
    alloy_primitives::U256::from_le_slice(record.data)
}

/// Largest decompressed `CompressedHeader` accepted. A header is ~540-620 bytes on mainnet (15 to 21 fields, a
/// 256-byte bloom, `extra_data` of at most 32 bytes); Clique networks put their signer list in `extra_data` (20
/// bytes a signer), and 64 KiB (one snappy chunk) still holds ~3,000 signers.
pub const MAX_HEADER_BYTES: usize = 64 << 10;

/// Largest decompressed `CompressedBody` accepted. Blocks are bounded by gas: at 30M gas (mainnet before the
/// merge) a block holds at most ~7.5 MB of transaction data (4 gas per zero byte, EIP-2028), at 60M (mainnet in
/// 2026) ~15 MB, plus ommer headers or withdrawals (16 a block, ~40 bytes each); 32 MiB leaves room for a
/// network with twice that gas limit.
pub const MAX_BODY_BYTES: usize = 32 << 20;

/// Largest decompressed `CompressedReceipts` or `CompressedSlimReceipts` accepted. Receipts are bounded by gas
/// too: log data costs 8 gas a byte and each log 375, so 30M gas buys ~3.75 MB of log data, plus a 256-byte bloom
/// per full receipt (at most ~1,430 transactions of 21,000 gas): ~4.2 MB; at 60M gas ~8.4 MB. Slim receipts are
/// the same without blooms.
pub const MAX_RECEIPTS_BYTES: usize = 16 << 20;

/// Largest decompressed `Proof` accepted: a Portal block proof is at most a few kilobytes (the largest, a
/// historical-hashes-accumulator proof, is 15 branch nodes of 32 bytes; the beacon proofs a few dozen).
pub const MAX_PROOF_BYTES: usize = 64 << 10;

// `TotalDifficulty` records are not compressed: exactly 32 bytes, checked when a block's records are read.

/// One framed decoder per record kind, so header, body, receipts and proof of a block can be held at once.
/// Create one per worker thread and reuse it for every block.
///
/// Each decoder refuses to produce more than its kind's cap ([`MAX_HEADER_BYTES`], [`MAX_BODY_BYTES`],
/// [`MAX_RECEIPTS_BYTES`], [`MAX_PROOF_BYTES`]) and grows its buffer only as far as the data asks, so a
/// decompression bomb costs a verification thread at most ~48 MiB, not the 1 GiB a state may need.
pub struct BlockDecoders {
    /// Decodes `CompressedHeader` records.
    pub header: super::snappy::FramedDecoder,
    /// Decodes `CompressedBody` records.
    pub body: super::snappy::FramedDecoder,
    /// Decodes `CompressedReceipts` and `CompressedSlimReceipts` records.
    pub receipts: super::snappy::FramedDecoder,
    /// Decodes `Proof` records.
    pub proof: super::snappy::FramedDecoder,
}

impl Default for BlockDecoders {
    fn default() -> Self {
        use super::snappy::FramedDecoder;
        BlockDecoders {
            header: FramedDecoder::with_max_output(MAX_HEADER_BYTES),
            body: FramedDecoder::with_max_output(MAX_BODY_BYTES),
            receipts: FramedDecoder::with_max_output(MAX_RECEIPTS_BYTES),
            proof: FramedDecoder::with_max_output(MAX_PROOF_BYTES),
        }
    }
}

/// Decompresses one record with `dec`, locating any error at the record in `file`, block `number`.
pub fn decompress<'d>(
    dec: &'d mut super::snappy::FramedDecoder,
    record: &Record<'_>,
    file: &Path,
    number: u64,
) -> Result<&'d [u8], FormatError> {
    dec.decompress(record.data).map_err(|k| {
        FormatError::at(record.offset, k)
            .in_file(file)
            .in_block(number)
    })
}

/// Checks a `TotalDifficulty` record holds exactly 32 bytes.
pub(super) fn check_total_difficulty(record: &Record<'_>) -> Result<(), FormatError> {
    if record.data.len() == 32 {
        return Ok(());
    }
    Err(FormatError::at(
        record.offset,
        super::FormatErrorKind::Mismatch {
            what: "total difficulty length",
            expected: "32".into(),
            found: record.data.len().to_string(),
        },
    ))
}

/// Whether a record of type `kind` holds receipts in the slim form (ere) rather than the full one (era1).
pub fn is_slim_receipts(kind: RecordType) -> bool {
    kind == RecordType::COMPRESSED_SLIM_RECEIPTS
}
