//! The era1 accumulator: `hash_tree_root(List[HeaderRecord, 8192])` with
//! `HeaderRecord = {block_hash: Bytes32, total_difficulty: uint256}` (go-ethereum internal/era/accumulator.go;
//! the era1 format, <https://github.com/eth-clients/e2store-format-specs/blob/main/formats/era1.md>).
//!
//! The SSZ serialization of that list is exactly `block_hash || total_difficulty (LE)` per record, 64 bytes each,
//! so callers fill one buffer of `64 * n` bytes and the record roots are hashed straight from it in one batch.

use crate::crypto::sha256;

/// The list limit: 8192 records, a tree of depth 13.
const LIMIT_DEPTH: usize = 13;

/// Serialized header records: `block_hash || td_le` per block, in block order.
#[derive(Debug, Default, Clone)]
pub struct HeaderRecords {
    bytes: Vec<u8>,
}

impl HeaderRecords {
    /// Room for `n` records.
    pub fn with_capacity(n: usize) -> Self {
        HeaderRecords {
            bytes: Vec::with_capacity(64 * n),
        }
    }

    /// Appends one record.
    pub fn push(&mut self, block_hash: &[u8; 32], total_difficulty_le: &[u8; 32]) {
        self.bytes.extend_from_slice(block_hash);
        self.bytes.extend_from_slice(total_difficulty_le);
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.bytes.len() / 64
    }

    /// True when no record was pushed.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The accumulator root, or `None` when there are more than 8192 records.
    pub fn root(&self) -> Option<[u8; 32]> {
        let n = self.len();
        if n > 1 << LIMIT_DEPTH {
            return None;
        }
        // Leaves: each record is one 64-byte block (two chunks), so its root is one compression pair.
        let mut layer = vec![0u8; 32 * n];
        sha256::hash_blocks(&self.bytes, &mut layer);
        let root = merkleize(layer, LIMIT_DEPTH);
        let mut len_chunk = [0u8; 32];
        len_chunk[..8].copy_from_slice(&(n as u64).to_le_bytes());
        Some(sha256::hash_pair(&root, &len_chunk))
    }
}

/// Merkle root of `layer` (32-byte chunks) padded with zero chunks to `2^depth` leaves. Pads virtually: only the
/// last odd node of a layer is paired with the precomputed zero-subtree hash of that height.
fn merkleize(mut layer: Vec<u8>, depth: usize) -> [u8; 32] {
    let mut zero = [0u8; 32];
    let mut next = Vec::with_capacity(layer.len() / 2 + 32);
    if layer.is_empty() {
        // An empty list's tree is all padding: the zero-subtree hash of the full depth.
        for _ in 0..depth {
            zero = sha256::hash_pair(&zero, &zero);
        }
        return zero;
    }
    for _ in 0..depth {
        let n = layer.len() / 32;
        let pairs = n / 2;
        next.clear();
        next.resize(32 * pairs, 0);
        sha256::hash_blocks(&layer[..64 * pairs], &mut next);
        if n % 2 == 1 {
            let last: [u8; 32] = layer[64 * pairs..].try_into().unwrap_or_default();
            next.extend_from_slice(&sha256::hash_pair(&last, &zero));
        }
        std::mem::swap(&mut layer, &mut next);
        zero = sha256::hash_pair(&zero, &zero);
    }
    layer[..32].try_into().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Naive reference: pad to 8192 leaves and hash every level.
    fn naive(records: &[([u8; 32], [u8; 32])]) -> [u8; 32] {
        let mut layer: Vec<[u8; 32]> = records
            .iter()
            .map(|(h, td)| sha256::sha256(&[&h[..], &td[..]].concat()))
            .collect();
        layer.resize(8192, [0u8; 32]);
        while layer.len() > 1 {
            layer = layer
                .chunks(2)
                .map(|p| sha256::hash_pair(&p[0], &p[1]))
                .collect();
        }
        let mut len_chunk = [0u8; 32];
        len_chunk[..8].copy_from_slice(&(records.len() as u64).to_le_bytes());
        sha256::hash_pair(&layer[0], &len_chunk)
    }

    #[test]
    fn matches_naive_for_many_lengths() {
        for n in [0usize, 1, 2, 3, 5, 8, 100, 1023, 8191, 8192] {
            let recs: Vec<_> = (0..n)
                .map(|i| ([i as u8; 32], [(i * 3) as u8; 32]))
                .collect();
            let mut hr = HeaderRecords::with_capacity(n);
            for (h, td) in &recs {
                hr.push(h, td);
            }
            assert_eq!(hr.root().unwrap(), naive(&recs), "n={n}");
        }
    }
}
