//! Ordered Merkle-Patricia trie roots (transactions, receipts, withdrawals): keys are `rlp(index)`, values the
//! items' canonical encodings. Delegates to `alloy-trie`, the implementation reth uses; it is not a hot spot
//! next to decompression and keccak of the items themselves (see `benches/era1.rs`).

use alloy_primitives::B256;

/// Root of the trie of `items` keyed by their position. An empty list gives keccak(rlp("")) (`0x56e8…b421`).
pub fn ordered_root<T: AsRef<[u8]>>(items: &[T]) -> B256 {
    alloy_trie::root::ordered_trie_root_encoded(items)
}

/// Root of an empty trie.
pub const EMPTY_ROOT: B256 = alloy_trie::EMPTY_ROOT_HASH;
