//! era files: beacon-chain history, one file per 8192 slots
//! (<https://github.com/eth-clients/e2store-format-specs/blob/main/formats/era.md>).
//!
//! ```text
//! era   := group+
//! group := Version | CompressedSignedBeaconBlock* | CompressedBeaconState | other* | SlotIndex(block)? | SlotIndex(state)
//! SlotIndex := starting-slot: u64 LE | offset: i64 LE * count | count: u64 LE
//! ```
//!
//! - Offsets are relative to the start of the SlotIndex record; 0 marks an empty slot.
//! - The state is the one at slot `era * 8192`; the blocks are those of slots `(era - 1) * 8192 ..
//!   era * 8192`, so the genesis era has a state and no block index.
//! - A file is named `<network>-<era:05>-<hash8>.era`: hash8 is the first 4 bytes of the genesis validators
//!   root (era 0), `historical_roots[era - 1]` before Capella, or the historical summary root after it.

pub mod read;
pub mod write;

pub use read::{
    block_decoder, state_decoder, EraFile, SlotIndex, MAX_BLOCK_BYTES, MAX_STATE_BYTES,
    SLOTS_PER_ERA,
};
pub use write::EraWriter;
