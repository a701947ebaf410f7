//! The shapes of `manifest.json` and `ranges.json`: a stable interface for node operators and `prune check`.
//!
//! Both are deterministic (fields in a fixed order, maps sorted, no timestamps or paths, only file names), so
//! two runs over the same inputs give byte-identical files and a manifest's sha256 identifies its content.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the output layout; bump when a file's meaning or encoding changes.
pub const FORMAT_VERSION: &str = "eraflow-prune/1";

/// The manifest's file name: written last, so its presence means the directory is complete.
pub const MANIFEST: &str = "manifest.json";
/// 32-byte block hashes in block order (gaps skipped).
pub const BLOCK_HASHES: &str = "block_hashes.bin";
/// 32-byte transaction hashes, strictly increasing.
pub const TX_HASHES: &str = "tx_hashes.bin";
/// (transaction_hash, block_number, transaction_index) sorted by block then index.
pub const TX_LOCATIONS: &str = "tx_locations.parquet";
/// Block ranges per data kind that a node may drop.
pub const RANGES: &str = "ranges.json";
/// `--format text`: one 0x-hash per line, block order.
pub const BLOCK_HASHES_TXT: &str = "block_hashes.txt";
/// `--format text`: one 0x-hash per line, sorted.
pub const TX_HASHES_TXT: &str = "tx_hashes.txt";

/// An inclusive block range `[first, last]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockRange {
    /// First block in the range.
    pub first: u64,
    /// Last block in the range (inclusive).
    pub last: u64,
}

impl BlockRange {
    /// Blocks in the range.
    pub fn len(&self) -> u64 {
        self.last - self.first + 1
    }
    /// Never true for a well-formed range (`first <= last`); present for clippy's `len` convention.
    pub fn is_empty(&self) -> bool {
        self.last < self.first
    }
}

/// The window a manifest was cut by, in `manifest.json` (absent for a fixed range).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowRecord {
    /// `--keep-epochs`, when the window is counted in epochs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_epochs: Option<u64>,
    /// `--keep-blocks`, when it is counted in blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_blocks: Option<u64>,
    /// The newest block of the inputs, which the window is counted back from.
    pub reference_block: u64,
    /// Its timestamp (seconds).
    pub reference_timestamp: u64,
    /// The archive holding it (verified before anything else is read).
    pub reference_file: String,
    /// The first block the node keeps: the manifest lists the blocks below it.
    pub first_kept_block: u64,
}

impl WindowRecord {
    /// The window it records.
    pub fn window(&self) -> Option<super::options::Window> {
        use super::options::Window;
        match (self.keep_epochs, self.keep_blocks) {
            (Some(n), _) => Some(Window::Epochs(n)),
            (None, Some(n)) => Some(Window::Blocks(n)),
            (None, None) => None,
        }
    }
}

/// One archive file that contributed blocks, with enough to re-identify and re-verify it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// File name only (no directory), so the manifest does not depend on where archives live.
    pub name: String,
    /// Hex sha256 of the whole archive file.
    pub sha256: String,
    /// Size of the archive in bytes (for MB/s figures and a cheap identity check).
    pub size: u64,
    /// All blocks the file holds (it verified as a whole).
    pub file_blocks: BlockRange,
    /// The blocks of this file inside the manifest's range.
    pub included: BlockRange,
    /// 0x-hex accumulator root (equal to the file's Accumulator record; verified).
    pub accumulator_root: String,
    /// Blocks contributed (`included.len()`).
    pub blocks: u64,
    /// Transactions contributed.
    pub transactions: u64,
}

/// One output file's integrity record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListFile {
    /// Hex sha256 of the file.
    pub sha256: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Entries (hashes, rows or lines); 0 for `ranges.json`.
    pub entries: u64,
}

/// Totals over every source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Blocks listed in `block_hashes.bin`.
    pub blocks: u64,
    /// Transactions listed in `tx_hashes.bin` and `tx_locations.parquet`.
    pub transactions: u64,
    /// Archive bytes read.
    pub archive_bytes: u64,
}

/// `manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT_VERSION`].
    pub format_version: String,
    /// The eraflow version that wrote it.
    pub eraflow_version: String,
    /// Network preset name.
    pub network: String,
    /// Chain id from the preset.
    pub chain_id: u64,
    /// The network's first proof-of-stake block (blocks before it are pre-merge).
    pub first_pos_block: u64,
    /// The requested range, inclusive.
    pub range: BlockRange,
    /// Whether the range was given explicitly (`--from-block`/`--until-block`) or derived.
    pub explicit_range: bool,
    /// The rolling window that ended the range (`--keep-epochs`/`--keep-blocks`): what it was counted from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowRecord>,
    /// Ranges inside `range` no archive covered (only with `--allow-gaps`; otherwise empty).
    pub gaps: Vec<BlockRange>,
    /// Contributing archives, in block order.
    pub sources: Vec<SourceFile>,
    /// Totals.
    pub totals: Totals,
    /// Every other file in the directory by name, with checksum, size and entry count.
    pub files: BTreeMap<String, ListFile>,
}

/// What a node may do with one kind of data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindRanges {
    /// Block ranges the node may delete (verified, listed in this manifest).
    pub drop: Vec<BlockRange>,
    /// Why (for humans reading the file).
    pub note: String,
}

/// `ranges.json`: per data kind, the block ranges a node may drop.
///
/// Headers are kept (never listed for dropping): [EIP-4444](https://eips.ethereum.org/EIPS/eip-4444)'s pre-merge
/// history expiry removes bodies and receipts but clients keep headers, which the chain of parent hashes, total
/// difficulty and light clients still need and which are small (~500 bytes per block). The transaction-hash index may
/// be dropped over the same ranges as bodies, by key, using `tx_hashes.bin`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ranges {
    /// [`FORMAT_VERSION`].
    pub format_version: String,
    /// Network preset name.
    pub network: String,
    /// Chain id.
    pub chain_id: u64,
    /// Headers: kept, so `drop` is empty.
    pub headers: KindRanges,
    /// Block bodies (transactions and ommers).
    pub bodies: KindRanges,
    /// Receipts.
    pub receipts: KindRanges,
    /// The transaction-hash -> location index (keys in `tx_hashes.bin`).
    pub transaction_index: KindRanges,
}

impl Ranges {
    /// The ranges for covered blocks `covered` (the manifest's range minus its gaps).
    pub fn new(network: &str, chain_id: u64, covered: Vec<BlockRange>) -> Ranges {
        Ranges {
            format_version: FORMAT_VERSION.into(),
            network: network.into(),
            chain_id,
            headers: KindRanges {
                drop: Vec::new(),
                note: "headers are kept (EIP-4444 pre-merge expiry drops bodies and receipts only)".into(),
            },
            bodies: KindRanges {
                drop: covered.clone(),
                note: "bodies of every verified block in range".into(),
            },
            receipts: KindRanges {
                drop: covered.clone(),
                note: "receipts of every block whose body is dropped (receipts are not read: the archive keeps them)".into(),
            },
            transaction_index: KindRanges {
                drop: covered,
                note: "delete by key: every hash in tx_hashes.bin".into(),
            },
        }
    }
}

/// The covered ranges of `range` once `gaps` (sorted, inside `range`) are removed.
pub fn covered(range: BlockRange, gaps: &[BlockRange]) -> Vec<BlockRange> {
    let mut out = Vec::new();
    let mut next = range.first;
    for g in gaps {
        if g.first > next {
            out.push(BlockRange {
                first: next,
                last: g.first - 1,
            });
        }
        next = g.last.saturating_add(1);
    }
    if next <= range.last {
        out.push(BlockRange {
            first: next,
            last: range.last,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covered_removes_gaps() {
        let r = BlockRange { first: 0, last: 99 };
        let g = [
            BlockRange { first: 0, last: 9 },
            BlockRange {
                first: 50,
                last: 59,
            },
        ];
        assert_eq!(
            covered(r, &g),
            vec![
                BlockRange {
                    first: 10,
                    last: 49
                },
                BlockRange {
                    first: 60,
                    last: 99
                }
            ]
        );
        assert_eq!(covered(r, &[]), vec![r]);
    }
}
