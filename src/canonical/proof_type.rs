//! Which Portal proof container an ere `Proof` record holds, for which blocks ([`ProofType`]), and the depth
//! of each proof's branches. Below the proofs themselves, the anchors and the errors, which all name types.

use crate::consensus::Fork;
use crate::network::Network;
use std::fmt;

/// Depth of an epoch record's tree: 13 levels of records, the record's two fields, the length mix-in.
pub const ACCUMULATOR_PROOF_DEPTH: usize = 15;

/// An ere proof type: which Portal proof container a `Proof` record holds, for which blocks.
///
/// | type | container | SSZ bytes | blocks |
/// |---|---|---|---|
/// | 0 | `BlockProofHistoricalHashesAccumulator` (15 roots) | 480 | pre-merge (by block number) |
/// | 1 | `BlockProofHistoricalRoots` (14 + 1 + 11 roots, slot) | 840 | merge to Shanghai (by timestamp) |
/// | 2 | `BlockProofHistoricalSummariesCapella` (13 + 1 + 11 roots, slot) | 808 | Shanghai to Cancun |
/// | 3 | `BlockProofHistoricalSummariesDeneb` (13 + 1 + 12 roots, slot) | 840 | Cancun on |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProofType {
    /// 0: `BlockProofHistoricalHashesAccumulator`, pre-merge blocks.
    HistoricalHashesAccumulator,
    /// 1: `BlockProofHistoricalRoots`, merge to Capella.
    HistoricalRoots,
    /// 2: `BlockProofHistoricalSummariesCapella`, Capella to Deneb.
    HistoricalSummariesCapella,
    /// 3: `BlockProofHistoricalSummariesDeneb`, Deneb on.
    HistoricalSummariesDeneb,
}

/// Siblings in the execution branch up to Capella (generalized index 3228).
pub const EXECUTION_PROOF_DEPTH_BELLATRIX: usize = 11;
/// Siblings in the execution branch from Deneb on (generalized index 6444: the payload has 17 fields).
pub const EXECUTION_PROOF_DEPTH_DENEB: usize = 12;
/// Siblings from a block root to a `HistoricalBatch` root: `block_roots` (13) and the batch (1).
pub const BEACON_PROOF_DEPTH_HISTORICAL_ROOTS: usize = 14;
/// Siblings from a block root to a period's `block_roots` root (a `block_summary_root`).
pub const BEACON_PROOF_DEPTH_SUMMARIES: usize = 13;

impl ProofType {
    /// Every type, by number.
    pub const ALL: [ProofType; 4] = [
        ProofType::HistoricalHashesAccumulator,
        ProofType::HistoricalRoots,
        ProofType::HistoricalSummariesCapella,
        ProofType::HistoricalSummariesDeneb,
    ];

    /// The type numbered `code` in ere's `Proof` records, `None` for numbers ere does not define.
    pub fn from_code(code: u64) -> Option<ProofType> {
        Self::ALL.get(usize::try_from(code).ok()?).copied()
    }

    /// The number ere gives the type.
    pub fn code(self) -> u64 {
        self as u64
    }

    /// The Portal spec's container name.
    pub fn name(self) -> &'static str {
        match self {
            ProofType::HistoricalHashesAccumulator => "BlockProofHistoricalHashesAccumulator",
            ProofType::HistoricalRoots => "BlockProofHistoricalRoots",
            ProofType::HistoricalSummariesCapella => "BlockProofHistoricalSummariesCapella",
            ProofType::HistoricalSummariesDeneb => "BlockProofHistoricalSummariesDeneb",
        }
    }

    /// The blocks the type is for, in words.
    pub fn blocks(self) -> &'static str {
        match self {
            ProofType::HistoricalHashesAccumulator => "pre-merge",
            ProofType::HistoricalRoots => "from the merge to Shanghai/Capella",
            ProofType::HistoricalSummariesCapella => "from Shanghai/Capella to Cancun/Deneb",
            ProofType::HistoricalSummariesDeneb => "from Cancun/Deneb on",
        }
    }

    /// The type block `number` with `timestamp` needs on `network`.
    pub fn for_block(network: &Network, number: u64, timestamp: u64) -> ProofType {
        if !network.is_merged(number) {
            ProofType::HistoricalHashesAccumulator
        } else if network.is_cancun(timestamp) {
            ProofType::HistoricalSummariesDeneb
        } else if network.is_shanghai(timestamp) {
            ProofType::HistoricalSummariesCapella
        } else {
            ProofType::HistoricalRoots
        }
    }

    /// `(beaconBlockProof, executionBlockProof)` lengths in roots (`None` for type 0).
    pub(super) fn beacon_depths(self) -> Option<(usize, usize)> {
        match self {
            ProofType::HistoricalHashesAccumulator => None,
            ProofType::HistoricalRoots => Some((
                BEACON_PROOF_DEPTH_HISTORICAL_ROOTS,
                EXECUTION_PROOF_DEPTH_BELLATRIX,
            )),
            ProofType::HistoricalSummariesCapella => Some((
                BEACON_PROOF_DEPTH_SUMMARIES,
                EXECUTION_PROOF_DEPTH_BELLATRIX,
            )),
            ProofType::HistoricalSummariesDeneb => {
                Some((BEACON_PROOF_DEPTH_SUMMARIES, EXECUTION_PROOF_DEPTH_DENEB))
            }
        }
    }

    /// The SSZ size of the type's proofs, in bytes (480, 840, 808, 840).
    pub fn ssz_len(self) -> usize {
        match self.beacon_depths() {
            None => 32 * ACCUMULATOR_PROOF_DEPTH,
            Some((beacon, execution)) => 32 * (beacon + 1 + execution) + 8,
        }
    }

    /// The consensus forks whose beacon blocks this type's proofs go through: first slot, and the first slot
    /// past them (`None`: open-ended). `None` for type 0.
    pub(super) fn slots(self, network: &Network) -> Option<(u64, Option<u64>)> {
        let slot = |f: Fork| f.activation_slot(network).unwrap_or(u64::MAX);
        match self {
            ProofType::HistoricalHashesAccumulator => None,
            ProofType::HistoricalRoots => Some((slot(Fork::Bellatrix), Some(slot(Fork::Capella)))),
            ProofType::HistoricalSummariesCapella => {
                Some((slot(Fork::Capella), Some(slot(Fork::Deneb))))
            }
            ProofType::HistoricalSummariesDeneb => Some((slot(Fork::Deneb), None)),
        }
    }
}

impl fmt::Display for ProofType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (type {})", self.name(), self.code())
    }
}
