//! ere files: execution history of one era (8192 blocks) before or after the merge — headers, bodies, slim
//! receipts, Portal header proofs, total difficulty over pre-merge blocks and the accumulator root.
//!
//! Layout (`formats/ere.md` and `types/0x0a00.md`, `0x0b00.md`, `0x6732.md` of
//! <https://github.com/eth-clients/e2store-format-specs>, as go-ethereum's `internal/era/execdb` reads and writes
//! it):
//!
//! ```text
//! ere := Version | CompressedHeader+ | CompressedBody+ | CompressedSlimReceipts* | Proof* | TotalDifficulty*
//!        | other-entries* | AccumulatorRoot? | DynamicBlockIndex
//! DynamicBlockIndex := starting-number | indexes * count | component-count | count     (all u64 LE)
//! indexes := header | body | receipts? | total-difficulty? | proof?                      (i64 LE, relative)
//! ```
//!
//! - Each index entry is relative to the start of the `DynamicBlockIndex` record (negative), as in era1.
//! - `component-count` (2 to 5) says how many entries each block has. Which entry is which is read from the
//!   record types the first block's entries point at, not from their position: the spec orders a block's
//!   entries `receipts, difficulty, proof` but its file layout puts `Proof` records before `TotalDifficulty`
//!   ones, Nethermind indexes `receipts, proof, difficulty`, and one version of the spec made the receipts
//!   entry mandatory while `ere.md` and the `noreceipts` profile make it optional. eraflow accepts every such
//!   file (as go-ethereum's reader does, by type tag), requires header and body, and writes the spec's order.
//! - Records of one component must come in block order; whether components are grouped (the spec,
//!   go-ethereum) or interleaved block by block (nimbus's reader) does not matter to a reader that follows the
//!   index, so both are accepted.
//! - `TotalDifficulty` (32 bytes little-endian) and `AccumulatorRoot` cover pre-merge history only: a
//!   merge-transition file repeats the final total difficulty for its post-merge blocks and roots the
//!   accumulator over its pre-merge blocks; a post-merge file has neither.
//! - A file is named `<network>-<era:05>-<first 4 bytes of the last block's hash>(-noproofs)?(-noreceipts)?.ere`
//!   (`.erae` on older mirrors); see [`crate::formats::ArchiveName`].

pub mod read;
pub mod write;

pub use read::{Component, DynamicBlockIndex, EreFile, MAX_COMPONENTS, MIN_COMPONENTS};
pub use write::{EreBlock, EreWriter};
