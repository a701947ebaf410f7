//! The four proof types of an ere file's `Proof` records (`formats/ere.md`, "Proof type"), as the Portal history
//! network defines them
//! (<https://github.com/ethereum/portal-network-specs/blob/master/legacy/history/history-network.md#block-header>),
//! and their verification.
//!
//! ```text
//! 0 BlockProofHistoricalHashesAccumulator = Vector[Bytes32, 15]
//! 1 BlockProofHistoricalRoots            = Container[beaconBlockProof: Vector[Bytes32, 14], beaconBlockRoot: Bytes32,
//!                                                     executionBlockProof: Vector[Bytes32, 11], slot: uint64]
//! 2 BlockProofHistoricalSummariesCapella = Container[beaconBlockProof: Vector[Bytes32, 13], beaconBlockRoot: Bytes32,
//!                                                     executionBlockProof: Vector[Bytes32, 11], slot: uint64]
//! 3 BlockProofHistoricalSummariesDeneb   = Container[beaconBlockProof: Vector[Bytes32, 13], beaconBlockRoot: Bytes32,
//!                                                     executionBlockProof: Vector[Bytes32, 12], slot: uint64]
//! ```
//!
//! Every type is fixed-size, so its SSZ is the fields back to back and the length says nothing about the type
//! (types 1 and 3 are both 840 bytes): the record's type number does.
//!
//! Which type a block needs follows its fork, decided as the Portal spec and its clients (trin, fluffy) do: the
//! merge by block number (`first_pos_block`), Shanghai and Cancun by header timestamp (`shanghai_time`,
//! `cancun_time`). Prague/Electra and Fulu blocks keep type 3: their block body and payload keep the Deneb
//! shape along the proof's path.
//!
//! The proof's `slot` only picks the leaf and the anchor entry, and an empty slot repeats the previous block's
//! root in `block_roots`, so a slot one off can reach the same root; the header's timestamp fixes the slot
//! (`genesis_time + 12 * slot`, anchored here at Shanghai's time being Capella's first slot), and a proof of
//! another slot is refused.
//!
//! The execution branch runs from the payload's `block_hash` up to the beacon block root: payload field 12 of
//! 14 or 15 fields (depth 4; Deneb's 17 fields: depth 5), body field 9 (depth 4), block field 4 (`body`, depth
//! 3), so generalized index 3228 (Bellatrix, Capella) or 6444 (Deneb on). The beacon branch runs from the block
//! root at `slot % 8192` of the period's `block_roots` (depth 13), to `historical_roots[slot / 8192]` through
//! the `HistoricalBatch{block_roots, state_roots}` (one more level) for type 1, or to
//! `historical_summaries[(slot - capella_slot) / 8192].block_summary_root` for types 2 and 3.

use super::anchor::{Anchor, Proven};
use super::beacon::PERIOD_SLOTS;
use super::branch::branch_root;
use super::error::{NotProven, Step};
use super::proof_type::ProofType;
use super::trusted::Anchors;
use crate::consensus::Fork;
use crate::execution::header::HeaderView;
use crate::network::Network;

/// What a proof is checked for: a block's number and timestamp (they pick its proof type) and its hash (the
/// proof's leaf).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockId {
    /// The block number.
    pub number: u64,
    /// The header's timestamp.
    pub timestamp: u64,
    /// The block hash (keccak256 of the header's RLP).
    pub hash: [u8; 32],
}

impl BlockId {
    /// The number, timestamp and hash of a decoded header.
    pub fn of(header: &HeaderView<'_>) -> BlockId {
        BlockId {
            number: header.number(),
            timestamp: header.timestamp(),
            hash: header.hash().0,
        }
    }
}

/// A decoded proof of type 1, 2 or 3 (zero-copy over its SSZ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BeaconProof<'a> {
    /// The proof's type.
    pub proof_type: ProofType,
    /// `beaconBlockProof`: from the beacon block root to the historical root or block summary root.
    pub beacon_block_proof: &'a [[u8; 32]],
    /// `beaconBlockRoot`: hash_tree_root of the beacon block holding the execution payload.
    pub beacon_block_root: &'a [u8; 32],
    /// `executionBlockProof`: from the payload's block hash to the beacon block root.
    pub execution_block_proof: &'a [[u8; 32]],
    /// `slot`: the beacon block's slot.
    pub slot: u64,
}

/// A decoded proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodedProof<'a> {
    /// Type 0: the 15 roots of the branch from the block hash to its epoch record root. The first is the
    /// header record's total difficulty (uint256, little-endian).
    Accumulator(&'a [[u8; 32]]),
    /// Types 1 to 3.
    Beacon(BeaconProof<'a>),
}

/// Decodes the SSZ of a proof of `proof_type` (a `Proof` record's second field), checking its exact length.
pub fn decode_proof(proof_type: ProofType, ssz: &[u8]) -> Result<DecodedProof<'_>, NotProven> {
    if ssz.len() != proof_type.ssz_len() {
        return Err(NotProven::Length {
            proof: proof_type,
            expected: proof_type.ssz_len(),
            found: ssz.len(),
        });
    }
    let Some((beacon, execution)) = proof_type.beacon_depths() else {
        return Ok(DecodedProof::Accumulator(ssz.as_chunks::<32>().0));
    };
    // Fields back to back (all fixed-size); the length was checked, so every split is in range.
    let (roots, slot) = ssz.split_at(ssz.len() - 8);
    let roots = roots.as_chunks::<32>().0;
    let (beacon_block_proof, rest) = roots.split_at(beacon);
    let length = || NotProven::Length {
        proof: proof_type,
        expected: proof_type.ssz_len(),
        found: ssz.len(),
    };
    let (beacon_block_root, execution_block_proof) = rest.split_first().ok_or_else(length)?;
    if execution_block_proof.len() != execution {
        return Err(length());
    }
    Ok(DecodedProof::Beacon(BeaconProof {
        proof_type,
        beacon_block_proof,
        beacon_block_root,
        execution_block_proof,
        slot: u64::from_le_bytes(slot.try_into().unwrap_or_default()),
    }))
}

/// Verifies that the proof (`proof_type` and `ssz`, the two fields of an ere `Proof` record as
/// [`crate::verify::proof::decode`] gives them) proves `block` canonical against `anchors`.
///
/// Checked in order: the type is one ere defines and the one the block's fork needs; the SSZ has the type's
/// exact length; for types 1 to 3, the beacon slot is in the type's fork and is the slot of the header's
/// timestamp, and the execution branch leads from the block hash to the proof's beacon block root (all
/// independent of anchors); then the anchor is looked up and the last branch must reach it.
pub fn verify_proof(
    network: &Network,
    block: &BlockId,
    proof_type: u64,
    ssz: &[u8],
    anchors: &Anchors<'_>,
) -> Result<Proven, NotProven> {
    let found = ProofType::from_code(proof_type)
        .ok_or(NotProven::UnsupportedProofType { found: proof_type })?;
    let expected = ProofType::for_block(network, block.number, block.timestamp);
    if found != expected {
        return Err(NotProven::WrongProofType {
            number: block.number,
            expected,
            found,
        });
    }
    match decode_proof(found, ssz)? {
        DecodedProof::Accumulator(branch) => anchors
            .accumulator
            .ok_or_else(|| NotProven::NoAccumulator {
                network: network.name.clone(),
            })?
            .verify_header_record(block.number, &block.hash, branch),
        DecodedProof::Beacon(p) => {
            verify_beacon_proof(network, &block.hash, block.timestamp, &p, anchors)
        }
    }
}

/// The beacon slot of a post-merge execution block with `timestamp`: a payload's timestamp is
/// `genesis_time + slot * SECONDS_PER_SLOT` (consensus-specs `process_execution_payload`), and Shanghai's time is
/// the start of Capella's first slot, so `slot = capella_slot + (timestamp - shanghai_time) / SECONDS_PER_SLOT`
/// (the network's: 12 on mainnet, 5 on gnosis). `None` when
/// the network does not schedule both, or the timestamp falls between slots (no payload can have it).
fn slot_at(network: &Network, timestamp: u64) -> Option<u64> {
    let shanghai = i128::from(network.forks.shanghai_time?);
    let capella = i128::from(Fork::Capella.activation_slot(network)?);
    let seconds = i128::from(network.seconds_per_slot());
    let since = i128::from(timestamp) - shanghai;
    if since % seconds != 0 {
        return None;
    }
    u64::try_from(capella + since / seconds).ok()
}

/// The position of the payload's `block_hash` among the `2^depth` nodes of its level in a beacon block's tree,
/// for an execution branch of `depth` siblings (the payload's own depth is what remains of the block's 3 and
/// the body's 4 levels).
fn execution_leaf_index(depth: usize) -> u64 {
    let payload_depth = depth.saturating_sub(3 + 4);
    (((4 << 4) | 9) << payload_depth) | 12
}

fn verify_beacon_proof(
    network: &Network,
    block_hash: &[u8; 32],
    timestamp: u64,
    p: &BeaconProof<'_>,
    anchors: &Anchors<'_>,
) -> Result<Proven, NotProven> {
    if let Some((first, end)) = p.proof_type.slots(network) {
        if p.slot < first || end.is_some_and(|e| p.slot >= e) {
            return Err(NotProven::SlotOutsideFork {
                proof: p.proof_type,
                slot: p.slot,
                first,
                end,
            });
        }
    }
    if let Some(expected) = slot_at(network, timestamp) {
        if expected != p.slot {
            return Err(NotProven::SlotNotTimestamp {
                slot: p.slot,
                timestamp,
                expected,
            });
        }
    }
    // Block hash -> beacon block root: payload field 12, body field 9 (depth 4), block field 4 (depth 3).
    let index = execution_leaf_index(p.execution_block_proof.len());
    let found = branch_root(block_hash, p.execution_block_proof, index);
    if &found != p.beacon_block_root {
        return Err(NotProven::Mismatch {
            step: Step::ExecutionBlock,
            expected: *p.beacon_block_root,
            found,
        });
    }
    // Beacon block root -> its period's root: leaf `slot % 8192` of block_roots (field 0 of a HistoricalBatch,
    // so the same index one level deeper).
    let leaf = p.slot % PERIOD_SLOTS;
    let found = branch_root(p.beacon_block_root, p.beacon_block_proof, leaf);
    let (anchor, step, expected) = match p.proof_type {
        ProofType::HistoricalRoots => {
            let roots = anchors
                .historical_roots
                .ok_or_else(|| NotProven::NoHistoricalRoots {
                    network: network.name.clone(),
                })?;
            let index = p.slot / PERIOD_SLOTS;
            let root = roots.get(index).ok_or(NotProven::NoHistoricalRoot {
                slot: p.slot,
                index,
                len: roots.len(),
            })?;
            (
                Anchor::HistoricalRoots { index },
                Step::HistoricalRoot { index },
                *root,
            )
        }
        _ => {
            let s = anchors
                .historical_summaries
                .ok_or(NotProven::NoHistoricalSummaries)?;
            let not_covered = || NotProven::NotCovered {
                state_slot: s.state_slot(),
                slot: p.slot,
                covered_until: s.covered_until(),
            };
            let index = s.index_of(p.slot).ok_or_else(not_covered)?;
            let root = s.block_summary_root(index).ok_or_else(not_covered)?;
            let state_slot = s.state_slot();
            (
                Anchor::HistoricalSummaries { state_slot, index },
                Step::BlockSummaryRoot { index, state_slot },
                root,
            )
        }
    };
    if found != expected {
        return Err(NotProven::Mismatch {
            step,
            expected,
            found,
        });
    }
    Ok(Proven {
        anchor,
        root: expected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mainnet() -> Network {
        Network::by_name("mainnet").unwrap()
    }

    #[test]
    fn types_have_the_portal_sizes() {
        let lens: Vec<usize> = ProofType::ALL.iter().map(|t| t.ssz_len()).collect();
        assert_eq!(lens, [480, 840, 808, 840]);
        for t in ProofType::ALL {
            assert_eq!(ProofType::from_code(t.code()), Some(t));
        }
        assert_eq!(ProofType::from_code(4), None);
        assert_eq!(ProofType::from_code(u64::MAX), None);
        assert_eq!(
            ProofType::HistoricalRoots.to_string(),
            "BlockProofHistoricalRoots (type 1)"
        );
    }

    #[test]
    fn execution_branch_indices_are_the_portal_generalized_indices() {
        // 3228 = 2^11 + 1180 and 6444 = 2^12 + 2348 (trin's header_validator.rs).
        assert_eq!((1 << 11) + execution_leaf_index(11), 3228);
        assert_eq!((1 << 12) + execution_leaf_index(12), 6444);
    }

    #[test]
    fn mainnet_fork_boundaries_pick_the_proof_type() {
        let n = mainnet();
        let shanghai = n.forks.shanghai_time.unwrap();
        let cancun = n.forks.cancun_time.unwrap();
        let t = |number, ts| ProofType::for_block(&n, number, ts).code();
        assert_eq!(t(15537393, 1663224162), 0);
        assert_eq!(t(15537394, 1663224179), 1);
        assert_eq!(t(17034869, shanghai - 1), 1);
        assert_eq!(t(17034870, shanghai), 2);
        assert_eq!(t(19426586, cancun - 1), 2);
        assert_eq!(t(19426587, cancun), 3);
        assert_eq!(t(22431084, n.forks.prague_time.unwrap()), 3);
    }

    #[test]
    fn a_payload_timestamp_fixes_its_slot() {
        let n = mainnet();
        // The first proof-of-stake block (slot 4700013) and the first Capella one (slot 6209538).
        assert_eq!(slot_at(&n, 1663224179), Some(4700013));
        assert_eq!(
            slot_at(&n, n.forks.shanghai_time.unwrap() + 24),
            Some(6209538)
        );
        assert_eq!(slot_at(&n, 1663224180), None);
        let mut unscheduled = n.clone();
        unscheduled.forks.shanghai_time = None;
        assert_eq!(slot_at(&unscheduled, 1663224179), None);
    }

    #[test]
    fn bad_types_and_lengths_are_named() {
        let n = mainnet();
        let a = Anchors::embedded(&n);
        let block = BlockId {
            number: 1,
            timestamp: 0,
            hash: [0; 32],
        };
        let e = verify_proof(&n, &block, 4, &[0; 480], &a).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unsupported proof type 4: ere defines types 0 to 3"
        );
        let e = verify_proof(&n, &block, 1, &[0; 840], &a).unwrap_err();
        assert_eq!(
            e.to_string(),
            "block 1 is pre-merge: it needs a proof of type 0 (BlockProofHistoricalHashesAccumulator), \
             found type 1 (BlockProofHistoricalRoots)"
        );
        let e = verify_proof(&n, &block, 0, &[0; 479], &a).unwrap_err();
        assert_eq!(
            e.to_string(),
            "BlockProofHistoricalHashesAccumulator (type 0): expected 480 bytes, found 479 (truncated)"
        );
        let e = verify_proof(&n, &block, 0, &[0; 481], &a).unwrap_err();
        assert!(e.to_string().ends_with("found 481 (overlong)"), "{e}");
        let e = verify_proof(&n, &block, 0, &[0; 480], &a).unwrap_err();
        assert!(
            matches!(
                e,
                NotProven::Mismatch {
                    step: Step::HeaderRecord { era: 0 },
                    ..
                }
            ),
            "{e}"
        );
        let e = verify_proof(&n, &block, 0, &[0; 480], &Anchors::default()).unwrap_err();
        assert!(e.is_unanchored(), "{e}");
    }

    #[test]
    fn beacon_slots_must_be_in_the_types_fork() {
        let n = mainnet();
        let block = BlockId {
            number: 15537394,
            timestamp: 1663224179,
            hash: [0; 32],
        };
        let mut ssz = vec![0u8; 840];
        ssz[832..].copy_from_slice(&(194048u64 * 32).to_le_bytes());
        let e = verify_proof(&n, &block, 1, &ssz, &Anchors::embedded(&n)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "BlockProofHistoricalRoots (type 1): beacon slot 6209536 is outside its fork's slots 4636672 to 6209535"
        );
    }
}
