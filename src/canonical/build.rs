//! Building proofs from the data they summarise: what a writer of default-profile ere files puts in each block's
//! `Proof` record, byte for byte what the Portal network publishes.
//!
//! - Type 0, from the era's epoch record (`List[HeaderRecord, 8192]`, the records an era1 file's accumulator
//!   root hashes): [`EpochRecordProofs`].
//! - Types 1 to 3, from the beacon block carrying the execution payload and its period's `block_roots` (type 1:
//!   the whole `HistoricalBatch`, whose root `historical_roots` holds): [`PeriodProofs`] and [`beacon_proof`].
//!
//! Each builder hashes its tree once; a proof is then a read of siblings, so all blocks of an era cost about one
//! tree.

use super::accumulator::ERA_BLOCKS;
use super::beacon::PERIOD_SLOTS;
use super::branch::Tree;
use super::error::BuildError;
use super::proof_type::ProofType;
use crate::consensus::merkle;
use crate::consensus::ssz::{self, hash_tree_root, Container, ErrorKind, SszError, Ty};
use crate::consensus::types::{HISTORICAL_BATCH, ROOTS_VECTOR};
use crate::consensus::{self as cl, Fork};
use crate::crypto::sha256;
use crate::network::Network;

/// Depth of `block_roots` (and of an epoch record's records): 8192 leaves.
const PERIOD_DEPTH: u32 = 13;

/// Type 0 proofs for the blocks of one era.
#[derive(Debug, Clone)]
pub struct EpochRecordProofs {
    /// Over the record roots (`hash_tree_root(HeaderRecord)`), 8192 leaves.
    tree: Tree,
    /// The records' SSZ: `block_hash || total_difficulty` (64 bytes each).
    records: Vec<u8>,
}

impl EpochRecordProofs {
    /// From the SSZ of an `EpochRecord` (`List[HeaderRecord, 8192]`: 64 bytes per record, in block order).
    pub fn new(epoch_record: &[u8]) -> Result<Self, BuildError> {
        let ssz_err = |kind| BuildError::Ssz {
            what: "epoch record",
            source: SszError::new(kind),
        };
        let ty = "List[HeaderRecord, 8192]".to_string();
        if !epoch_record.len().is_multiple_of(64) {
            return Err(ssz_err(ErrorKind::NotMultiple {
                ty,
                elem_size: 64,
                found: epoch_record.len(),
            }));
        }
        let count = epoch_record.len() / 64;
        if count as u64 > ERA_BLOCKS {
            return Err(ssz_err(ErrorKind::TooMany {
                ty,
                limit: ERA_BLOCKS,
                found: count as u64,
            }));
        }
        // A record is two chunks: its root is the hash of its 64 bytes.
        let mut leaves = vec![[0u8; 32]; count];
        sha256::hash_blocks(epoch_record, leaves.as_flattened_mut());
        Ok(EpochRecordProofs {
            tree: Tree::new(leaves, PERIOD_DEPTH),
            records: epoch_record.to_vec(),
        })
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.records.len() / 64
    }

    /// True when the record is empty.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// hash_tree_root of the epoch record: the accumulator's entry for the era (and an era1 file's root).
    pub fn root(&self) -> [u8; 32] {
        merkle::mix_in_length(&self.tree.root(), self.len() as u64)
    }

    /// The type 0 proof of block `number` (its record is `number % 8192`), SSZ-encoded (480 bytes).
    pub fn proof(&self, number: u64) -> Result<Vec<u8>, BuildError> {
        let index = number % ERA_BLOCKS;
        let at = index as usize * 64;
        let td = self
            .records
            .get(at + 32..at + 64)
            .ok_or(BuildError::NotInRecord {
                number,
                index,
                records: self.len(),
            })?;
        let mut out = Vec::with_capacity(ProofType::HistoricalHashesAccumulator.ssz_len());
        // The leaf is the record's block_hash: its sibling is the total difficulty, then the record's branch,
        // then the list's length.
        out.extend_from_slice(td);
        for sibling in self.tree.branch(index as usize) {
            out.extend_from_slice(&sibling);
        }
        let mut length = [0u8; 32];
        length[..8].copy_from_slice(&(self.len() as u64).to_le_bytes());
        out.extend_from_slice(&length);
        Ok(out)
    }
}

/// Branches from beacon block roots to their period's root, from the period's `block_roots` (proof types 2 and 3)
/// or its whole `HistoricalBatch` (type 1 as well).
#[derive(Debug, Clone)]
pub struct PeriodProofs {
    block_roots: Tree,
    /// hash_tree_root of the batch's `state_roots`, when built from a batch.
    state_roots_root: Option<[u8; 32]>,
}

impl PeriodProofs {
    /// From the SSZ of a period's `block_roots` (`Vector[Root, 8192]`, 262,144 bytes).
    pub fn from_block_roots(block_roots: &[u8]) -> Result<Self, BuildError> {
        // The walker checks the exact length.
        hash_tree_root(&ROOTS_VECTOR, block_roots).map_err(|source| BuildError::Ssz {
            what: "block_roots",
            source,
        })?;
        Ok(PeriodProofs {
            block_roots: Tree::new(block_roots.as_chunks::<32>().0.to_vec(), PERIOD_DEPTH),
            state_roots_root: None,
        })
    }

    /// From the SSZ of a period's `HistoricalBatch{block_roots, state_roots}` (524,288 bytes).
    pub fn from_historical_batch(batch: &[u8]) -> Result<Self, BuildError> {
        let err = |source| BuildError::Ssz {
            what: "historical batch",
            source,
        };
        let fields = ssz::split_container(&HISTORICAL_BATCH, batch).map_err(err)?;
        let (block_roots, state_roots) = match fields.as_slice() {
            [b, s] => (*b, *s),
            _ => (&[][..], &[][..]),
        };
        let mut p = Self::from_block_roots(block_roots)?;
        p.state_roots_root = Some(hash_tree_root(&ROOTS_VECTOR, state_roots).map_err(err)?);
        Ok(p)
    }

    /// hash_tree_root of `block_roots`: the period's `HistoricalSummary.block_summary_root`.
    pub fn block_summary_root(&self) -> [u8; 32] {
        self.block_roots.root()
    }

    /// hash_tree_root of the `HistoricalBatch` (the period's `historical_roots` entry), when built from one.
    pub fn historical_root(&self) -> Option<[u8; 32]> {
        Some(sha256::hash_pair(
            &self.block_roots.root(),
            self.state_roots_root.as_ref()?,
        ))
    }
}

/// A beacon block's execution branch: its slot and fork, its root, and the siblings from its payload's block
/// hash up to that root.
struct ExecutionBranch {
    slot: u64,
    fork: Fork,
    block_root: [u8; 32],
    branch: Vec<[u8; 32]>,
}

/// The tree of a container's field roots, and the bytes of each field.
fn field_tree<'a>(
    c: &'static Container,
    bytes: &'a [u8],
) -> Result<(Tree, Vec<&'a [u8]>), SszError> {
    let fields = ssz::split_container(c, bytes)?;
    let roots = c
        .fields
        .iter()
        .zip(&fields)
        .map(|(f, b)| hash_tree_root(f.ty, b))
        .collect::<Result<Vec<_>, _>>()?;
    let depth = merkle::depth_for(roots.len() as u64);
    Ok((Tree::new(roots, depth), fields))
}

/// The position of field `name` of `c`, and its schema when it is a container.
fn field(c: &'static Container, name: &str) -> Option<(usize, Option<&'static Container>)> {
    let at = c.fields.iter().position(|f| f.name == name)?;
    let schema = match c.fields[at].ty {
        Ty::Container(inner) => Some(*inner),
        _ => None,
    };
    Some((at, schema))
}

fn execution_branch(network: &Network, block: &[u8]) -> Result<ExecutionBranch, BuildError> {
    let err = |source| BuildError::Ssz {
        what: "beacon block",
        source,
    };
    let slot = cl::slot_of(block, cl::Kind::Block).map_err(err)?;
    let fork = Fork::at_slot(slot, network);
    let schema = cl::Spec::new(fork, network.preset()).block_schema();
    // Block -> body -> execution_payload -> block_hash; a fork without payloads has no such path.
    let path = field(schema, "body").and_then(|(body_at, body)| {
        let body = body?;
        let (payload_at, payload) = field(body, "execution_payload")?;
        let payload = payload?;
        let (hash_at, _) = field(payload, "block_hash")?;
        Some((body_at, body, payload_at, payload, hash_at))
    });
    let Some((body_at, body_schema, payload_at, payload_schema, hash_at)) = path else {
        return Err(BuildError::NoExecutionPayload { slot, fork });
    };
    let (block_tree, fields) = field_tree(schema, block).map_err(err)?;
    let body = fields.get(body_at).copied().unwrap_or_default();
    let (body_tree, fields) = field_tree(body_schema, body).map_err(err)?;
    let payload = fields.get(payload_at).copied().unwrap_or_default();
    let (payload_tree, _) = field_tree(payload_schema, payload).map_err(err)?;
    let mut branch = payload_tree.branch(hash_at);
    branch.extend(body_tree.branch(payload_at));
    branch.extend(block_tree.branch(body_at));
    Ok(ExecutionBranch {
        slot,
        fork,
        block_root: block_tree.root(),
        branch,
    })
}

/// The proof (type 1, 2 or 3 by the block's fork) that the execution block in `beacon_block` (a `BeaconBlock`'s
/// SSZ, of `network`) is canonical, SSZ-encoded, from its period's `block_roots` or historical batch. The
/// period must hold the block's root at its slot.
pub fn beacon_proof(
    network: &Network,
    beacon_block: &[u8],
    period: &PeriodProofs,
) -> Result<(ProofType, Vec<u8>), BuildError> {
    let e = execution_branch(network, beacon_block)?;
    let proof_type = match e.fork {
        Fork::Bellatrix => ProofType::HistoricalRoots,
        Fork::Capella => ProofType::HistoricalSummariesCapella,
        _ => ProofType::HistoricalSummariesDeneb,
    };
    let leaf = (e.slot % PERIOD_SLOTS) as usize;
    let found = period.block_roots.leaf(leaf);
    if found != e.block_root {
        return Err(BuildError::NotInPeriod {
            slot: e.slot,
            expected: e.block_root,
            found,
        });
    }
    let mut beacon_branch = period.block_roots.branch(leaf);
    if proof_type == ProofType::HistoricalRoots {
        let state_roots = period
            .state_roots_root
            .ok_or(BuildError::NeedsHistoricalBatch { slot: e.slot })?;
        beacon_branch.push(state_roots);
    }
    let mut out = Vec::with_capacity(proof_type.ssz_len());
    for root in beacon_branch.iter().chain([&e.block_root]).chain(&e.branch) {
        out.extend_from_slice(root);
    }
    out.extend_from_slice(&e.slot.to_le_bytes());
    Ok((proof_type, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::accumulator::HistoricalHashesAccumulator;
    use crate::canonical::anchor::Anchor;
    use crate::canonical::proof::{verify_proof, BlockId};
    use crate::canonical::Anchors;
    use crate::execution::accumulator::HeaderRecords;

    #[test]
    fn epoch_record_proofs_verify_and_match_the_era1_root() {
        // A partial record, as the merge era's: 5 records.
        let mut records = HeaderRecords::with_capacity(5);
        let mut ssz = Vec::new();
        for i in 0..5u8 {
            let (h, td) = ([i + 1; 32], [i; 32]);
            records.push(&h, &td);
            ssz.extend_from_slice(&h);
            ssz.extend_from_slice(&td);
        }
        let p = EpochRecordProofs::new(&ssz).unwrap();
        assert_eq!(Some(p.root()), records.root());
        // An accumulator of that one era anchors the proofs.
        let mut acc = Vec::new();
        acc.extend_from_slice(&8u32.to_le_bytes());
        acc.extend_from_slice(&40u32.to_le_bytes());
        acc.extend_from_slice(&p.root());
        let anchors = Anchors {
            accumulator: Some(HistoricalHashesAccumulator::from_ssz(&acc).unwrap()),
            ..Default::default()
        };
        let n = Network::by_name("mainnet").unwrap();
        for i in 0..5u8 {
            let block = BlockId {
                number: i as u64,
                timestamp: 0,
                hash: [i + 1; 32],
            };
            let proof = p.proof(i as u64).unwrap();
            assert_eq!(proof.len(), 480);
            assert_eq!(
                &proof[..32],
                &[i; 32],
                "the first sibling is the total difficulty"
            );
            let ok = verify_proof(&n, &block, 0, &proof, &anchors).unwrap();
            assert_eq!(ok.anchor, Anchor::Accumulator { era: 0 });
        }
        assert_eq!(
            p.proof(5).unwrap_err().to_string(),
            "block 5 is record 5 of its era, and the epoch record holds 5"
        );
        assert!(EpochRecordProofs::new(&ssz[..63]).is_err());
    }

    #[test]
    fn period_roots_are_the_batch_and_summary_roots() {
        let block_roots: Vec<u8> = (0..8192u32 * 32).map(|i| (i % 251) as u8).collect();
        let state_roots: Vec<u8> = (0..8192u32 * 32).map(|i| (i % 13) as u8).collect();
        let batch = [&block_roots[..], &state_roots[..]].concat();
        let p = PeriodProofs::from_historical_batch(&batch).unwrap();
        assert_eq!(
            p.historical_root(),
            Some(ssz::container_root(&HISTORICAL_BATCH, &batch).unwrap())
        );
        assert_eq!(
            p.block_summary_root(),
            hash_tree_root(&ROOTS_VECTOR, &block_roots).unwrap()
        );
        let q = PeriodProofs::from_block_roots(&block_roots).unwrap();
        assert_eq!(q.historical_root(), None);
        assert!(PeriodProofs::from_block_roots(&block_roots[1..]).is_err());
        assert!(PeriodProofs::from_historical_batch(&block_roots).is_err());
    }
}
