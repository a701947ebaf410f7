//! Gloas ([EIP-7732](https://eips.ethereum.org/EIPS/eip-7732)) blocks carry a builder's bid instead of the
//! execution payload: what an era file shows of the bid chain is checked here (see [`crate::consensus::bid`]
//! for the spec facts).
//!
//! - per block: the bid is for the block's slot and parent block; a self-built bid pays nothing and carries
//!   the point at infinity; any other names a builder of the state's registry; each payload attestation votes
//!   on the parent block at the previous slot;
//! - between a block and its parent (the previous block of the file, or the last payload before the fork): the
//!   child's bid builds on the parent bid's `block_hash` (the parent's payload was revealed, and the child's
//!   `parent_execution_requests` hash to the parent bid's `execution_requests_root`) or on the parent bid's own
//!   `parent_block_hash` (withheld: no requests); anything else is a broken chain;
//! - against the era's state (`era_state::check_bids`): `latest_execution_payload_bid` is the last block's bid,
//!   `latest_block_hash` what that bid builds on, and `execution_payload_availability` holds one bit per slot
//!   after the fork: set exactly for the blocks whose payload the next block revealed.

use super::{hex0x, mismatch};
use crate::consensus::bid::{
    empty_requests_root, requests_root_and_empty, ExecutionPayloadBid, G2_POINT_AT_INFINITY,
};
use crate::consensus::{BeaconBlock, BeaconBlockBody, SszError};
use crate::formats::{FormatError, FormatErrorKind};

/// What a child block's bid is checked against: its parent's bid, or the parent's payload before the fork.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ParentLink {
    /// The parent's slot.
    pub(crate) slot: u64,
    /// The execution block the parent committed to (its bid's `block_hash`) or carried (its payload's).
    pub(crate) block_hash: [u8; 32],
    /// What the parent's bid built on (`None` for a payload: it is always revealed).
    pub(crate) parent_block_hash: Option<[u8; 32]>,
    /// The root the revealed payload's requests hash to (a payload before the fork: the empty requests', as
    /// `upgrade_to_gloas` records).
    pub(crate) requests_root: [u8; 32],
}

impl ParentLink {
    /// The link a Gloas block's bid leaves for its child.
    pub(crate) fn of_bid(slot: u64, bid: &ExecutionPayloadBid<'_>) -> ParentLink {
        ParentLink {
            slot,
            block_hash: bid.block_hash(),
            parent_block_hash: Some(bid.parent_block_hash()),
            requests_root: bid.execution_requests_root(),
        }
    }
    /// The link a block with an execution payload (before Gloas) leaves for its child.
    pub(crate) fn of_payload(slot: u64, block_hash: [u8; 32]) -> ParentLink {
        ParentLink {
            slot,
            block_hash,
            parent_block_hash: None,
            requests_root: empty_requests_root(),
        }
    }
}

/// What verification learnt of one Gloas block's bid.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BidFacts {
    /// hash_tree_root of the bid (`state.latest_execution_payload_bid` of the era's last block).
    pub(crate) root: [u8; 32],
    /// The bid's `parent_block_hash`.
    pub(crate) parent_block_hash: [u8; 32],
    /// The root of the block's `parent_execution_requests`, and whether they are empty.
    pub(crate) parent_requests: ([u8; 32], bool),
    /// The bid's `block_hash` and `execution_requests_root` (what its child's bid is judged by).
    pub(crate) block_hash: [u8; 32],
    pub(crate) requests_root: [u8; 32],
    /// Whether the parent's payload was revealed; `None` when the parent is not in this file.
    pub(crate) parent_revealed: Option<bool>,
    /// Self-built (`builder_index` 2^64-1).
    pub(crate) self_built: bool,
}

/// Checks one Gloas block's bid and payload attestations, and its bid against its parent's when known.
pub(super) fn check_block(
    block: &BeaconBlock<'_>,
    body: &BeaconBlockBody<'_>,
    bid: &ExecutionPayloadBid<'_>,
    parent: Option<&ParentLink>,
    builders: Option<u64>,
    at: u64,
) -> Result<BidFacts, FormatError> {
    let slot = block.slot();
    let ssz = |e: SszError| {
        FormatError::at(
            at,
            FormatErrorKind::Index(format!("SignedBeaconBlock: {e}")),
        )
    };
    if bid.slot() != slot {
        return Err(mismatch(at, "bid slot (the block's)", slot, bid.slot()));
    }
    if bid.parent_block_root() != block.parent_root() {
        return Err(mismatch(
            at,
            "bid parent_block_root (the block's parent_root)",
            hex0x(&block.parent_root()),
            hex0x(&bid.parent_block_root()),
        ));
    }
    if bid.self_built() {
        if bid.value() != 0 {
            return Err(mismatch(
                at,
                "value of a self-built bid (builder_index 2^64-1)",
                0,
                bid.value(),
            ));
        }
        if bid.signature() != G2_POINT_AT_INFINITY {
            return Err(mismatch(
                at,
                "signature of a self-built bid (the point at infinity)",
                hex0x(&G2_POINT_AT_INFINITY[..4]) + "...",
                hex0x(&bid.signature()[..bid.signature().len().min(4)]) + "...",
            ));
        }
    } else if let Some(n) = builders.filter(|&n| bid.builder_index() >= n) {
        return Err(mismatch(
            at,
            "bid builder_index (in the state's builder registry)",
            format!("below {n} (the state's builders) or 2^64-1 (self-built)"),
            bid.builder_index(),
        ));
    }
    bid.blob_kzg_commitments().map_err(ssz)?;
    for (i, a) in body.payload_attestations().map_err(ssz)?.iter().enumerate() {
        if a.slot() + 1 != slot || a.beacon_block_root() != block.parent_root() {
            return Err(mismatch(
                at,
                "payload attestation data (the parent block at the previous slot)",
                format!("slot {} root {}", slot - 1, hex0x(&block.parent_root())),
                format!(
                    "slot {} root {} (payload attestation {i})",
                    a.slot(),
                    hex0x(&a.beacon_block_root())
                ),
            ));
        }
    }
    let (requests_root, requests_empty) = match body.parent_execution_requests() {
        Some(r) => requests_root_and_empty(r).map_err(ssz)?,
        None => (empty_requests_root(), true),
    };
    let parent_revealed = match parent {
        None => None,
        Some(p) => Some(judge_parent(
            bid.parent_block_hash(),
            (requests_root, requests_empty),
            p,
            at,
        )?),
    };
    Ok(BidFacts {
        root: bid.root().map_err(ssz)?,
        parent_block_hash: bid.parent_block_hash(),
        parent_requests: (requests_root, requests_empty),
        block_hash: bid.block_hash(),
        requests_root: bid.execution_requests_root(),
        parent_revealed,
        self_built: bid.self_built(),
    })
}

/// The era's first Gloas block whose parent is not in the file (the previous era's last block), to be judged
/// by `judge_parent` against that file's last block (`EraLinks::last_link`).
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct FirstBid {
    /// Its slot.
    pub slot: u64,
    /// Its block record's offset in the file.
    pub record_offset: u64,
    /// Its bid's `parent_block_hash`.
    pub parent_block_hash: [u8; 32],
    /// Its `parent_execution_requests`' root and whether they are empty.
    pub parent_requests: ([u8; 32], bool),
}

/// Whether a block whose bid builds on `parent_block_hash`, carrying `parent_requests` (root, empty), found
/// its parent's payload revealed (`true`) or withheld; an error when its bid builds on neither.
pub(super) fn judge_parent(
    parent_block_hash: [u8; 32],
    parent_requests: ([u8; 32], bool),
    p: &ParentLink,
    at: u64,
) -> Result<bool, FormatError> {
    let (requests_root, requests_empty) = parent_requests;
    if parent_block_hash == p.block_hash {
        if requests_root != p.requests_root {
            return Err(mismatch(
                at,
                "parent_execution_requests root (the revealed parent bid's execution_requests_root)",
                hex0x(&p.requests_root),
                hex0x(&requests_root),
            ));
        }
        return Ok(true);
    }
    if Some(parent_block_hash) == p.parent_block_hash {
        if !requests_empty {
            return Err(mismatch(
                at,
                "parent_execution_requests of a withheld parent payload",
                "none (ExecutionRequests())",
                "requests",
            ));
        }
        return Ok(false);
    }
    Err(mismatch(
        at,
        "bid parent_block_hash (the parent's block_hash if its payload was revealed, else what the parent built on)",
        match p.parent_block_hash {
            Some(h) => format!(
                "{} (revealed) or {} (withheld) from slot {}",
                hex0x(&p.block_hash),
                hex0x(&h),
                p.slot
            ),
            None => format!("{} (the payload of slot {})", hex0x(&p.block_hash), p.slot),
        },
        hex0x(&parent_block_hash),
    ))
}
