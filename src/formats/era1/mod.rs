//! era1 files: pre-merge execution history, 8192 blocks per file.
//!
//! Layout (the era1 format, <https://github.com/eth-clients/e2store-format-specs/blob/main/formats/era1.md>, as
//! go-ethereum's `internal/era` and reth's `reth-era` implement it):
//!
//! ```text
//! era1  := Version | block-tuple* | other-entries* | Accumulator | BlockIndex
//! block-tuple := CompressedHeader | CompressedBody | CompressedReceipts | TotalDifficulty
//! BlockIndex  := starting-number: u64 LE | index: i64 LE * count | count: u64 LE
//! ```
//!
//! - Index offsets are relative to the start of the BlockIndex record itself, so they are negative.
//! - TotalDifficulty is a 32-byte **little-endian** uint256.
//! - Accumulator is `hash_tree_root(List[HeaderRecord{block_hash, total_difficulty}, 8192])`.
//! - A file is named `<network>-<era:05>-<first 4 bytes of the accumulator root, hex>.era1`.

pub mod read;
pub mod write;

pub use read::{BlockIndex, BlockTuple, Era1File};
pub use write::Era1Writer;

pub use crate::formats::name::BLOCKS_PER_ERA;
