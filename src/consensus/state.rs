//! `BeaconState` as a view over SSZ bytes.
//!
//! Spec facts: the state starts `genesis_time: uint64, genesis_validators_root: Root, slot: Slot` in every
//! fork (so the slot is at byte 40); `block_roots`/`state_roots` are `Vector[Root, SLOTS_PER_HISTORICAL_ROOT]`
//! indexed by `slot % SLOTS_PER_HISTORICAL_ROOT`; `historical_roots` is frozen at capella, which appends
//! `HistoricalSummary {block_summary_root, state_summary_root}` to `historical_summaries` instead.
//!
//! Specs (and each later fork's `beacon-chain.md`):
//! - <https://github.com/ethereum/consensus-specs/blob/master/specs/phase0/beacon-chain.md#beaconstate>
//! - <https://github.com/ethereum/consensus-specs/blob/master/specs/capella/beacon-chain.md#historicalsummary>

use super::fork::Fork;
use super::spec::Spec;
use super::ssz::{SszError, View};
use super::types::SLOTS_PER_HISTORICAL_ROOT;

/// Byte offset of `slot` in every fork's `BeaconState` (after `genesis_time` and `genesis_validators_root`).
pub const STATE_SLOT_OFFSET: usize = 40;

/// A capella `HistoricalSummary`: `(block_summary_root, state_summary_root)`, the roots of one era's
/// `block_roots` and `state_roots` vectors.
pub type HistoricalSummary = ([u8; 32], [u8; 32]);

/// A validated `BeaconState` (top-level offsets checked; nested lists checked when read or hashed).
#[derive(Debug, Clone)]
pub struct BeaconState<'a> {
    view: View<'a>,
    spec: Spec,
}

/// The `latest_block_header` (`BeaconBlockHeader`) of a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockHeader {
    /// Slot of the latest block.
    pub slot: u64,
    /// Its proposer.
    pub proposer_index: u64,
    /// Its parent's root.
    pub parent_root: [u8; 32],
    /// Zero until the next slot's processing fills it in (spec `process_slot`).
    pub state_root: [u8; 32],
    /// hash_tree_root of the block body.
    pub body_root: [u8; 32],
}

impl BlockHeader {
    /// hash_tree_root of the header; equals the block's root once `state_root` is filled in.
    pub fn root(&self) -> [u8; 32] {
        let mut chunks = [0u8; 5 * 32];
        chunks[..8].copy_from_slice(&self.slot.to_le_bytes());
        chunks[32..40].copy_from_slice(&self.proposer_index.to_le_bytes());
        chunks[64..96].copy_from_slice(&self.parent_root);
        chunks[96..128].copy_from_slice(&self.state_root);
        chunks[128..160].copy_from_slice(&self.body_root);
        super::merkle::merkleize(&chunks, 5)
    }
}

fn root_at(bytes: &[u8], i: usize) -> Option<[u8; 32]> {
    bytes.get(i * 32..i * 32 + 32)?.try_into().ok()
}

impl<'a> BeaconState<'a> {
    /// Validates the state's fixed part and top-level offsets.
    pub fn new(bytes: &'a [u8], spec: Spec) -> Result<Self, SszError> {
        Ok(BeaconState {
            view: View::new(spec.state_schema(), bytes)?,
            spec,
        })
    }
    /// The fork whose schema this view uses.
    pub fn fork(&self) -> Fork {
        self.spec.fork
    }
    /// The fork and preset whose schema this view uses.
    pub fn spec(&self) -> Spec {
        self.spec
    }
    /// `slot`.
    pub fn slot(&self) -> u64 {
        self.view.u64("slot").unwrap_or_default()
    }
    /// `genesis_time`.
    pub fn genesis_time(&self) -> u64 {
        self.view.u64("genesis_time").unwrap_or_default()
    }
    /// `genesis_validators_root`: names era 0 files.
    pub fn genesis_validators_root(&self) -> [u8; 32] {
        self.view
            .bytes32("genesis_validators_root")
            .unwrap_or_default()
    }
    /// `block_roots[i]` for `i < 8192` (the caller reduces `slot % SLOTS_PER_HISTORICAL_ROOT`).
    pub fn block_root(&self, i: usize) -> Option<[u8; 32]> {
        root_at(self.view.get("block_roots")?, i % SLOTS_PER_HISTORICAL_ROOT)
    }
    /// `state_roots[i]` for `i < 8192`.
    pub fn state_root(&self, i: usize) -> Option<[u8; 32]> {
        root_at(self.view.get("state_roots")?, i % SLOTS_PER_HISTORICAL_ROOT)
    }
    /// The raw `block_roots` vector (8192 x 32 bytes).
    pub fn block_roots(&self) -> &'a [u8] {
        self.view.get("block_roots").unwrap_or_default()
    }
    /// The raw `state_roots` vector (8192 x 32 bytes).
    pub fn state_roots(&self) -> &'a [u8] {
        self.view.get("state_roots").unwrap_or_default()
    }
    /// `latest_block_header`.
    pub fn latest_block_header(&self) -> BlockHeader {
        let h = self.view.get("latest_block_header").unwrap_or_default();
        let u = |at| super::ssz::read_u64(h, at).unwrap_or_default();
        let r = |at: usize| {
            h.get(at..at + 32)
                .and_then(|b| b.try_into().ok())
                .unwrap_or_default()
        };
        BlockHeader {
            slot: u(0),
            proposer_index: u(8),
            parent_root: r(16),
            state_root: r(48),
            body_root: r(80),
        }
    }
    /// `historical_roots` (one root per 8192 slots before capella).
    pub fn historical_roots(&self) -> Result<Vec<[u8; 32]>, SszError> {
        let items = self
            .view
            .elements("historical_roots")
            .unwrap_or(Ok(Vec::new()))?;
        Ok(items
            .into_iter()
            .filter_map(|r| r.try_into().ok())
            .collect())
    }
    /// `historical_summaries` as `(block_summary_root, state_summary_root)` (empty before capella).
    pub fn historical_summaries(&self) -> Result<Vec<HistoricalSummary>, SszError> {
        let items = self
            .view
            .elements("historical_summaries")
            .unwrap_or(Ok(Vec::new()))?;
        Ok(items
            .into_iter()
            .filter_map(|s| {
                Some((
                    s.get(..32)?.try_into().ok()?,
                    s.get(32..64)?.try_into().ok()?,
                ))
            })
            .collect())
    }
    /// Number of validators in the registry.
    pub fn validator_count(&self) -> Result<usize, SszError> {
        self.view.count("validators").unwrap_or(Ok(0))
    }
    /// The builder registry's entries (Gloas on; empty before), 93 bytes each: `pubkey` 0, `version` 48,
    /// `execution_address` 49, `balance` 69, `deposit_epoch` 77, `withdrawable_epoch` 85.
    pub fn builders(&self) -> Result<Vec<&'a [u8]>, SszError> {
        self.view.elements("builders").unwrap_or(Ok(Vec::new()))
    }
    /// Number of builders in the registry (Gloas on; 0 before).
    pub fn builder_count(&self) -> Result<usize, SszError> {
        self.view.count("builders").unwrap_or(Ok(0))
    }
    /// The bytes of any field by spec name (`None` if this fork's state has no such field).
    pub fn field(&self, name: &str) -> Option<&'a [u8]> {
        self.view.get(name)
    }
    /// hash_tree_root of the state (fields in parallel for big states, validators split across workers).
    pub fn root(&self) -> Result<[u8; 32], SszError> {
        self.view.root()
    }
}
