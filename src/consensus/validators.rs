//! The validator registry root, the bulk of a BeaconState's hashing (8 of every ~9 hashes on mainnet).
//!
//! Spec facts (phase0 `Validator` container, SSZ merkleization): a validator serializes to 121 bytes
//! (`pubkey: BLSPubkey(48)`, `withdrawal_credentials: Bytes32`, `effective_balance: Gwei`, `slashed: boolean`,
//! four `Epoch`s); its root is the merkle root of 8 field chunks, where the pubkey's chunk is itself the root of
//! its two chunks (48 bytes zero-padded to 64) and the integers are little-endian zero-padded chunks.
//! That is exactly 8 hashes per validator: 1 for the pubkey, 4 + 2 + 1 for the field tree.
//!
//! Validators are processed in batches: every hash of a batch's layer is an independent 64-byte block, so each
//! layer is a single [`sha256::hash_blocks`] call over up to `BATCH` blocks.
//!
//! `Validator` container:
//! <https://github.com/ethereum/consensus-specs/blob/master/specs/phase0/beacon-chain.md#validator>.

use super::merkle::{self, Leaves};
use super::ssz::{ErrorKind, SszError};
use crate::crypto::sha256;
use std::ops::Range;
use std::sync::OnceLock;

/// Serialized size of a `Validator`.
pub const VALIDATOR_SIZE: usize = 121;

/// Validators per hashing batch: 64 x 8 chunks = 16 KiB of leaves, comfortably in L1/L2.
const BATCH: usize = 64;

struct ValidatorLeaves<'a> {
    bytes: &'a [u8],
    /// The first validator with a bad `slashed` byte (reported after hashing; leaves cannot fail).
    error: OnceLock<SszError>,
}

/// `hash_tree_root(List[Validator, limit])` (`ProgressiveList[Validator]` when `limit` is `None`, Gloas on)
/// without the length mix-in (the caller mixes it in). `bytes.len()` must be a multiple of 121 (the caller
/// checked it with a typed error).
pub fn validators_root(bytes: &[u8], limit: Option<u64>) -> Result<[u8; 32], SszError> {
    let leaves = ValidatorLeaves {
        bytes,
        error: OnceLock::new(),
    };
    let root = match limit {
        Some(limit) => merkle::merkleize_leaves(&leaves, limit),
        None => merkle::merkleize_progressive_leaves(&leaves),
    };
    match leaves.error.into_inner() {
        Some(e) => Err(e),
        None => Ok(root),
    }
}

impl Leaves for ValidatorLeaves<'_> {
    fn count(&self) -> usize {
        self.bytes.len() / VALIDATOR_SIZE
    }
    fn direct(&self, _: Range<usize>) -> Option<&[u8]> {
        None
    }
    fn fill(&self, range: Range<usize>, out: &mut Vec<u8>) {
        // Buffers live for the whole call; padding bytes are written once (zero) and never touched again,
        // every field byte is overwritten per validator.
        let mut pk_blocks = [0u8; BATCH * 64];
        let mut pk_roots = [0u8; BATCH * 32];
        let mut leaves = [0u8; BATCH * 256];
        let mut l1 = [0u8; BATCH * 128];
        let mut l2 = [0u8; BATCH * 64];
        let mut roots = [0u8; BATCH * 32];
        let start = range.start;
        let all = self
            .bytes
            .get(start * VALIDATOR_SIZE..range.end * VALIDATOR_SIZE)
            .unwrap_or(&[]);
        for (b, batch) in all.chunks(BATCH * VALIDATOR_SIZE).enumerate() {
            let n = batch.len() / VALIDATOR_SIZE;
            for (i, v) in batch.chunks_exact(VALIDATOR_SIZE).enumerate() {
                pk_blocks[i * 64..i * 64 + 48].copy_from_slice(&v[..48]);
            }
            sha256::hash_blocks(&pk_blocks[..n * 64], &mut pk_roots[..n * 32]);
            for (i, v) in batch.chunks_exact(VALIDATOR_SIZE).enumerate() {
                let l = &mut leaves[i * 256..(i + 1) * 256];
                l[..32].copy_from_slice(&pk_roots[i * 32..i * 32 + 32]);
                l[32..64].copy_from_slice(&v[48..80]); // withdrawal_credentials
                l[64..72].copy_from_slice(&v[80..88]); // effective_balance
                let slashed = v[88];
                if slashed > 1 {
                    let idx = start + b * BATCH + i;
                    let _ = self.error.set(
                        SszError::new(ErrorKind::BadBool { found: slashed })
                            .at_field("slashed")
                            .at_index(idx),
                    );
                }
                l[96] = slashed;
                l[128..136].copy_from_slice(&v[89..97]); // activation_eligibility_epoch
                l[160..168].copy_from_slice(&v[97..105]); // activation_epoch
                l[192..200].copy_from_slice(&v[105..113]); // exit_epoch
                l[224..232].copy_from_slice(&v[113..121]); // withdrawable_epoch
            }
            sha256::hash_blocks(&leaves[..n * 256], &mut l1[..n * 128]);
            sha256::hash_blocks(&l1[..n * 128], &mut l2[..n * 64]);
            sha256::hash_blocks(&l2[..n * 64], &mut roots[..n * 32]);
            out.extend_from_slice(&roots[..n * 32]);
        }
    }
    fn par_min(&self) -> usize {
        // 8 hashes per leaf: split from 2048 validators (~16k hashes) on.
        1 << 11
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::ssz::{hash_tree_root, Container, Ty};
    use crate::consensus::types::{VALIDATOR, VALIDATORS, VALIDATOR_REGISTRY_LIMIT};

    #[test]
    fn registry_root_matches_the_generic_walker() {
        assert!(VALIDATOR.elements_root.is_some());
        // The same container without the specialised root: the generic walker hashes each element.
        let generic: &'static Container =
            Box::leak(Box::new(Container::new(VALIDATOR.name, VALIDATOR.fields)));
        let elem: &'static Ty = Box::leak(Box::new(Ty::Container(generic)));
        let generic_list: &'static Ty =
            Box::leak(Box::new(Ty::List(elem, VALIDATOR_REGISTRY_LIMIT)));
        // Enough validators for several hashing batches and a parallel split.
        let n = 2500;
        let mut bytes: Vec<u8> = (0..n * VALIDATOR_SIZE)
            .map(|i| (i * 31 + i / 7) as u8)
            .collect();
        for i in 0..n {
            bytes[i * VALIDATOR_SIZE + 88] = (i % 2) as u8; // slashed
        }
        assert_eq!(
            hash_tree_root(&VALIDATORS, &bytes).unwrap(),
            hash_tree_root(generic_list, &bytes).unwrap()
        );
        bytes[1000 * VALIDATOR_SIZE + 88] = 2;
        let fast = hash_tree_root(&VALIDATORS, &bytes).unwrap_err();
        let slow = hash_tree_root(generic_list, &bytes).unwrap_err();
        assert_eq!(fast.kind, ErrorKind::BadBool { found: 2 });
        assert_eq!(slow.kind, fast.kind);
    }
}
