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
//! - against the era's state ([`check_state`]): `latest_execution_payload_bid` is the last block's bid,
//!   `latest_block_hash` what that bid builds on, and `execution_payload_availability` holds one bit per slot
//!   after the fork: set exactly for the blocks whose payload the next block revealed.

use super::era_state::{SlotFacts, StateFacts};
use super::{hex0x, mismatch};
use crate::consensus::bid::{
    empty_requests_root, requests_root_and_empty, ExecutionPayloadBid, G2_POINT_AT_INFINITY,
};
use crate::consensus::{BeaconBlock, BeaconBlockBody, SszError};
use crate::formats::era::SLOTS_PER_ERA;
use crate::formats::{FormatError, FormatErrorKind};
use crate::verify::report::{BidCounts, FileReport};
use std::collections::BTreeMap;

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
    state: &StateFacts,
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
    } else if let Some(n) = state.builders.filter(|&n| bid.builder_index() >= n) {
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

/// The link the era's last block leaves for the next era's first (its bid's, or its payload's).
pub(super) fn last_link(blocks: &[SlotFacts]) -> Option<ParentLink> {
    let b = blocks.last()?;
    match (&b.bid, &b.payload) {
        (Some(x), _) => Some(ParentLink {
            slot: b.slot,
            block_hash: x.block_hash,
            parent_block_hash: Some(x.parent_block_hash),
            requests_root: x.requests_root,
        }),
        (None, Some(p)) => Some(ParentLink::of_payload(b.slot, p.1)),
        (None, None) => None,
    }
}

/// The era's first Gloas block whose parent is not in the file (the previous era's last block), to be judged
/// by [`judge_parent`] against that file's [`last_link`].
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

/// [`FirstBid`] of an era's blocks.
pub(super) fn first_bid(blocks: &[SlotFacts]) -> Option<FirstBid> {
    let b = blocks.first()?;
    let x = b.bid?;
    x.parent_revealed.is_none().then_some(FirstBid {
        slot: b.slot,
        record_offset: b.record_offset,
        parent_block_hash: x.parent_block_hash,
        parent_requests: x.parent_requests,
    })
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

/// The era's state against its Gloas blocks: the latest bid and block hash, the payload availability bits;
/// and the bid counts into the report.
pub(super) fn check_state(
    sf: &StateFacts,
    blocks: &[SlotFacts],
    start_slot: u64,
    is_empty: impl Fn(u64) -> bool,
    at: u64,
    report: &mut FileReport,
) -> Option<BidCounts> {
    let gloas = sf.gloas.as_ref()?;
    let path = report.file.clone();
    let mut errors = Vec::new();
    let mut counts = BidCounts::default();
    for b in blocks.iter().filter_map(|b| b.bid.as_ref()) {
        counts.bids += 1;
        counts.self_built += b.self_built as u64;
        match b.parent_revealed {
            Some(true) => counts.parents_revealed += 1,
            Some(false) => counts.parents_withheld += 1,
            None => {}
        }
    }
    // The latest bid and block hash: the last block's bid, and what it builds on; a payload's hash when the
    // era's last block predates the fork (the upgrade's bid names it).
    if let Some(last) = blocks.last() {
        let (want_hash, what) = match (&last.bid, &last.payload) {
            (Some(b), _) => {
                if gloas.latest_bid_root != b.root {
                    errors.push(mismatch(
                        at,
                        "state.latest_execution_payload_bid (the era's last bid)",
                        format!("root {} (slot {})", hex0x(&b.root), last.slot),
                        format!("root {}", hex0x(&gloas.latest_bid_root)),
                    ));
                }
                (
                    b.parent_block_hash,
                    "state.latest_block_hash (what the era's last bid builds on)",
                )
            }
            (None, Some(p)) => (
                p.1,
                "state.latest_block_hash (the last payload's block hash, as the fork's upgrade records it)",
            ),
            (None, None) => (gloas.latest_block_hash, ""),
        };
        if gloas.latest_block_hash != want_hash {
            errors.push(mismatch(
                at,
                what,
                hex0x(&want_hash),
                hex0x(&gloas.latest_block_hash),
            ));
        }
    }
    // Availability: after the fork's first slot (whose bit the upgrade set) each slot's bit is cleared as the
    // slot begins and set when the next block reveals its payload. Index 0 is the state's own slot's (cleared).
    let bit = |slot: u64| {
        let i = (slot % SLOTS_PER_ERA) as usize;
        gloas
            .availability
            .get(i / 8)
            .is_some_and(|b| b & (1 << (i % 8)) != 0)
    };
    // Each block's payload as its child in the file tells (`None`: not told, its child failed its checks);
    // the era's last block's is not revealed yet.
    let mut revealed: BTreeMap<u64, Option<bool>> = blocks
        .windows(2)
        .map(|w| {
            let told = (w[1].parent_root == w[0].root)
                .then(|| w[1].bid.and_then(|b| b.parent_revealed))
                .flatten();
            (w[0].slot, told)
        })
        .collect();
    if let Some(last) = blocks.last() {
        revealed.insert(last.slot, Some(false));
    }
    let mut bits_checked = 0u64;
    for slot in (start_slot + 1..start_slot + SLOTS_PER_ERA).filter(|&s| s > gloas.fork_slot) {
        let want = match revealed.get(&slot) {
            Some(Some(r)) => *r,
            Some(None) => continue,
            None if is_empty(slot) => false,
            // A block that failed its own checks: reported already.
            None => continue,
        };
        bits_checked += 1;
        if bit(slot) != want {
            errors.push(
                mismatch(
                    at,
                    "state.execution_payload_availability bit (set when the next block revealed this slot's payload)",
                    want as u8,
                    bit(slot) as u8,
                )
                .in_slot(slot),
            );
            break;
        }
    }
    counts.availability_bits_checked = bits_checked;
    for e in errors {
        report.error(e.in_file(std::path::Path::new(&path)));
    }
    Some(counts)
}
