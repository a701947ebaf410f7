//! One execution block's records, the view era1 and ere files share: [`BlockRecords`] (slices of the map) and
//! the capped decoders and checks every block path uses on them.

use super::e2store::{Record, RecordType};
use super::error::FormatError;
use std::path::Path;

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
    pub header: super::e2store::snappy::FramedDecoder,
    /// Decodes `CompressedBody` records.
    pub body: super::e2store::snappy::FramedDecoder,
    /// Decodes `CompressedReceipts` and `CompressedSlimReceipts` records.
    pub receipts: super::e2store::snappy::FramedDecoder,
    /// Decodes `Proof` records.
    pub proof: super::e2store::snappy::FramedDecoder,
}

impl Default for BlockDecoders {
    fn default() -> Self {
        use super::e2store::snappy::FramedDecoder;
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
    dec: &'d mut super::e2store::snappy::FramedDecoder,
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
        super::error::FormatErrorKind::Mismatch {
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
