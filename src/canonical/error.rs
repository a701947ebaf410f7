//! Why a block or a file was not proven canonical, why a caller's anchor data was refused, and why a proof
//! could not be built.

use super::proof_type::ProofType;
use crate::consensus::{Fork, SszError};

/// `0x` and the 64 hex digits of a root, for messages.
pub(crate) fn hex32(root: &[u8; 32]) -> String {
    format!("0x{}", hex::encode(root))
}

/// Which link of a proof's chain did not reach the root it had to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// An era1 (or pre-merge ere) file's accumulator root against the accumulator's entry for its era.
    EraRoot {
        /// The file's era.
        era: u64,
    },
    /// Type 0: the block hash and the proof's branch against the accumulator's epoch record root.
    HeaderRecord {
        /// The block's era (`number / 8192`).
        era: u64,
    },
    /// Types 1 to 3: the block hash and the execution branch against the proof's `beaconBlockRoot`.
    ExecutionBlock,
    /// Type 1: the proof's `beaconBlockRoot` and its branch against `historical_roots[index]`.
    HistoricalRoot {
        /// `slot / 8192`.
        index: u64,
    },
    /// Types 2 and 3: the proof's `beaconBlockRoot` and its branch against
    /// `historical_summaries[index].block_summary_root` of the state at `state_slot`.
    BlockSummaryRoot {
        /// `(slot - capella_slot) / 8192`.
        index: u64,
        /// The slot of the state the summaries were taken from.
        state_slot: u64,
    },
}

impl Step {
    /// A short name of the link, opening its mismatch message.
    fn label(&self) -> &'static str {
        match self {
            Step::EraRoot { .. } => "accumulator root",
            Step::HeaderRecord { .. } => "header record proof",
            Step::ExecutionBlock => "execution block proof",
            Step::HistoricalRoot { .. } => "beacon block proof (historical_roots)",
            Step::BlockSummaryRoot { .. } => "beacon block proof (historical_summaries)",
        }
    }

    /// What the expected root is, in words.
    fn expected(&self) -> String {
        match self {
            Step::EraRoot { era } | Step::HeaderRecord { era } => {
                format!("the accumulator's epoch record root of era {era}")
            }
            Step::ExecutionBlock => "the proof's beaconBlockRoot".into(),
            Step::HistoricalRoot { index } => format!("historical_roots[{index}]"),
            Step::BlockSummaryRoot { index, state_slot } => format!(
                "historical_summaries[{index}].block_summary_root of the state at slot {state_slot}"
            ),
        }
    }

    /// Where the found root came from, in words.
    fn found(&self) -> &'static str {
        match self {
            Step::EraRoot { .. } => "the file's accumulator root",
            Step::HeaderRecord { .. } | Step::ExecutionBlock => {
                "from the block hash and the proof's branch"
            }
            Step::HistoricalRoot { .. } | Step::BlockSummaryRoot { .. } => {
                "from the proof's beaconBlockRoot and its branch"
            }
        }
    }
}

/// Why a block or file was not proven canonical.
///
/// Two kinds: [`is_unanchored`](Self::is_unanchored) reasons say there was nothing trusted to check against (a
/// network without an embedded accumulator, no historical summaries, summaries older than the block): the data
/// is neither proven nor disproven. Every other reason is a failed proof: the data or the proof is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotProven {
    /// No pre-merge accumulator is embedded for this network (only mainnet's is).
    #[error("no accumulator for network {network}: only mainnet's pre-merge accumulator (EIP-7643) is embedded")]
    NoAccumulator {
        /// The network's name.
        network: String,
    },
    /// No `historical_roots` are embedded for this network (only mainnet's are).
    #[error("no historical_roots for network {network}: only mainnet's (frozen at Capella) are embedded")]
    NoHistoricalRoots {
        /// The network's name.
        network: String,
    },
    /// A Capella-or-later proof, and no historical summaries were supplied.
    #[error("no historical summaries supplied: proofs of type 2 and 3 are checked against a beacon state's historical_summaries")]
    NoHistoricalSummaries,
    /// The summaries supplied are older than the block: they end before its period.
    #[error("historical summaries of slot {state_slot} do not cover slot {slot} (they cover slots before {covered_until})")]
    NotCovered {
        /// The slot of the state the summaries were taken from.
        state_slot: u64,
        /// The proof's beacon slot.
        slot: u64,
        /// The first slot the summaries do not cover.
        covered_until: u64,
    },
    /// An era past the pre-merge accumulator: era1 files hold pre-merge blocks only.
    #[error("era {era} is past the pre-merge accumulator (eras 0 to {last}): it holds no pre-merge blocks")]
    EraOutsideAccumulator {
        /// The era asked about.
        era: u64,
        /// The accumulator's last era (1896 on mainnet: the merge-transition era).
        last: u64,
    },
    /// A proof type ere does not define.
    #[error("unsupported proof type {found}: ere defines types 0 to 3")]
    UnsupportedProofType {
        /// The type found.
        found: u64,
    },
    /// The proof is of another fork's type than the block's.
    #[error("block {number} is {}: it needs a proof of type {} ({}), found type {} ({})", .expected.blocks(), .expected.code(), .expected.name(), .found.code(), .found.name())]
    WrongProofType {
        /// The block number.
        number: u64,
        /// The type the block's fork needs.
        expected: ProofType,
        /// The type found.
        found: ProofType,
    },
    /// The proof's SSZ is shorter or longer than its (fixed-size) type.
    #[error("{} (type {}): expected {expected} bytes, found {found} ({})", .proof.name(), .proof.code(), if .found < .expected { "truncated" } else { "overlong" })]
    Length {
        /// The proof's type.
        proof: ProofType,
        /// The type's size in bytes.
        expected: usize,
        /// The bytes found.
        found: usize,
    },
    /// The proof's beacon slot lies outside the consensus fork its type belongs to.
    #[error("{} (type {}): beacon slot {slot} is outside its fork's slots {first} to {}", .proof.name(), .proof.code(), .end.map_or("now".to_string(), |e| e.saturating_sub(1).to_string()))]
    SlotOutsideFork {
        /// The proof's type.
        proof: ProofType,
        /// The proof's beacon slot.
        slot: u64,
        /// The fork's first slot.
        first: u64,
        /// The next fork's first slot (`None`: still open).
        end: Option<u64>,
    },
    /// The proof's beacon slot is not the block's: a payload's timestamp fixes its slot.
    #[error("the proof's beacon slot {slot} is not the block's: timestamp {timestamp} is slot {expected}")]
    SlotNotTimestamp {
        /// The proof's beacon slot.
        slot: u64,
        /// The execution header's timestamp.
        timestamp: u64,
        /// The slot of that timestamp.
        expected: u64,
    },
    /// A slot whose `historical_roots` entry the anchor does not have.
    #[error("beacon slot {slot} needs historical_roots[{index}], and the anchor has {len} roots")]
    NoHistoricalRoot {
        /// The proof's beacon slot.
        slot: u64,
        /// `slot / 8192`.
        index: u64,
        /// Roots in the anchor.
        len: u64,
    },
    /// A link of the proof did not reach the root it had to.
    #[error("{}: expected {} ({}), found {} ({})", .step.label(), hex32(.expected), .step.expected(), hex32(.found), .step.found())]
    Mismatch {
        /// Which link.
        step: Step,
        /// The root it had to reach.
        expected: [u8; 32],
        /// The root it reached.
        found: [u8; 32],
    },
}

impl NotProven {
    /// True when there was nothing trusted to check against (no anchor for the network, no summaries, summaries
    /// older than the block): not evidence against the data, only the absence of proof.
    pub fn is_unanchored(&self) -> bool {
        matches!(
            self,
            NotProven::NoAccumulator { .. }
                | NotProven::NoHistoricalRoots { .. }
                | NotProven::NoHistoricalSummaries
                | NotProven::NotCovered { .. }
        )
    }
}

/// Anchor data a caller supplied (historical summaries, an accumulator, historical roots) that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnchorError {
    /// The bytes are not the SSZ of the expected type.
    #[error("{what}: {source}")]
    Ssz {
        /// What was being read.
        what: &'static str,
        /// What is wrong with the bytes.
        #[source]
        source: SszError,
    },
    /// Historical summaries of a state before Capella (there are none).
    #[error("historical summaries of slot {state_slot}: that state is before Capella (slot {capella_slot})")]
    BeforeCapella {
        /// The state's slot.
        state_slot: u64,
        /// Capella's first slot on the network.
        capella_slot: u64,
    },
    /// A state at slot S holds one summary per period completed since Capella: another count means the slot or
    /// the list is wrong.
    #[error("historical summaries of slot {state_slot}: expected {expected} entries (one per 8192 slots since Capella's slot {capella_slot}), found {found}")]
    Count {
        /// The state's slot.
        state_slot: u64,
        /// Capella's first slot on the network.
        capella_slot: u64,
        /// Entries a state at that slot holds.
        expected: u64,
        /// Entries found.
        found: u64,
    },
    /// An accumulator still being built (a non-empty `current_epoch`) is no anchor.
    #[error("historical hashes accumulator: current_epoch holds {records} records; a frozen accumulator's is empty")]
    NotFrozen {
        /// Records in `current_epoch`.
        records: usize,
    },
}

/// Why a proof could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// An input is not the SSZ of its type.
    #[error("{what}: {source}")]
    Ssz {
        /// What was being read.
        what: &'static str,
        /// What is wrong with the bytes.
        #[source]
        source: SszError,
    },
    /// The block is not in the epoch record (a partial record, such as the merge era's, ends before it).
    #[error("block {number} is record {index} of its era, and the epoch record holds {records}")]
    NotInRecord {
        /// The block number.
        number: u64,
        /// `number % 8192`.
        index: u64,
        /// Records in the epoch record.
        records: usize,
    },
    /// A beacon block of a fork without execution payloads.
    #[error("beacon block at slot {slot} is {fork}: it has no execution payload")]
    NoExecutionPayload {
        /// The block's slot.
        slot: u64,
        /// Its fork.
        fork: Fork,
    },
    /// The period's `block_roots` do not hold the block's root at its slot: another period, or another block.
    #[error("beacon block at slot {slot}: block_roots[{}] is {}, the block's root is {}", .slot % 8192, hex32(.found), hex32(.expected))]
    NotInPeriod {
        /// The block's slot.
        slot: u64,
        /// The block's root.
        expected: [u8; 32],
        /// The period's entry for the slot.
        found: [u8; 32],
    },
    /// A Bellatrix block's proof goes through the historical batch (`historical_roots` commit to it), which
    /// needs the period's `state_roots` too.
    #[error("beacon block at slot {slot} is bellatrix: its proof needs the period's historical batch, not only its block_roots")]
    NeedsHistoricalBatch {
        /// The block's slot.
        slot: u64,
    },
}
