//! keccak256, the execution layer's hash. One place so a faster backend (keccak-asm) is one change.

pub use alloy_primitives::{keccak256, B256};

/// keccak256 of the empty string: `transactions_root`/`receipts_root` of an empty trie hash to
/// keccak(rlp("")) instead, see `execution::trie`.
pub const KECCAK_EMPTY: B256 =
    alloy_primitives::b256!("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
