//! What an era's blocks are checked against in its own state: the state facts (block and state roots), the
//! historical accumulator and the file name's hash8, and the checks that need the blocks in slot order (parent
//! roots, empty slots, the payload chain, the latest block and execution payload headers).

use super::bid::{FirstBid, ParentLink};
use crate::consensus::merkle;
use crate::consensus::ssz;
use crate::consensus::state::BlockHeader;
use crate::consensus::types::ROOTS_VECTOR;
use crate::consensus::{BeaconState, Spec};
use crate::formats::era::{EraFile, SlotIndex, SLOTS_PER_ERA};
use crate::formats::ArchiveName;
use crate::formats::MappedArchive;
use crate::formats::{FormatError, FormatErrorKind};
use crate::verify::report::{BeaconReport, BidCounts, EraLinks, FileReport};
use crate::verify::{hex0x, mismatch};
use std::collections::BTreeMap;
use std::path::Path;

/// What one block contributed, for the sequential checks.
#[derive(Debug, Clone, Copy)]
pub(super) struct SlotFacts {
    pub(super) slot: u64,
    pub(super) record_offset: u64,
    pub(super) root: [u8; 32],
    pub(super) parent_root: [u8; 32],
    /// `(number, hash, parent_hash)` of a post-merge payload.
    pub(super) payload: Option<(u64, [u8; 32], [u8; 32])>,
    /// hash_tree_root of the payload and its fork, for the state's `latest_execution_payload_header`.
    pub(super) payload_root: Option<([u8; 32], Spec)>,
    pub(super) proposer: u64,
    pub(super) state_root: [u8; 32],
    pub(super) body_root: [u8; 32],
    /// Gloas: the block's bid.
    pub(super) bid: Option<super::bid::BidFacts>,
}

/// The state facts every block is checked against.
pub(super) struct StateFacts {
    pub(super) block_roots: Vec<u8>,
    pub(super) state_roots: Vec<u8>,
    pub(super) genesis_time: u64,
    /// Validators in the state's registry: the era's blocks can only name validators below it (the registry
    /// only grows, and the state is the era's last).
    pub(super) validators: u64,
    /// The state's fork rules (the schema `payload_header` is read with).
    pub(super) spec: Spec,
    /// `latest_block_header`: the era's last block, checked after the blocks.
    pub(super) latest_block_header: BlockHeader,
    /// `latest_execution_payload_header`'s bytes (bellatrix to fulu): its root is checked against the last
    /// payload, and it names the execution head ([`execution_head`]).
    pub(super) payload_header: Option<Vec<u8>>,
    /// Builders in the registry (Gloas on): bids name one of them, or are self-built.
    pub(super) builders: Option<u64>,
    /// What a Gloas state records of the bid chain.
    pub(super) gloas: Option<GloasFacts>,
}

/// A Gloas state's record of the bid chain (see [`super::bid::check_state`]).
pub(super) struct GloasFacts {
    /// The network's first Gloas slot.
    pub(super) fork_slot: u64,
    /// `latest_block_hash`.
    pub(super) latest_block_hash: [u8; 32],
    /// hash_tree_root of `latest_execution_payload_bid`.
    pub(super) latest_bid_root: [u8; 32],
    /// `execution_payload_availability` (one bit per slot, 1,024 bytes).
    pub(super) availability: Vec<u8>,
}

impl StateFacts {
    /// What the checks after the state's own need of it: a few KiB, so the decompressed state (hundreds of
    /// MB at mainnet's validator count) is freed before the blocks are read and exported.
    pub(super) fn of(state: &BeaconState<'_>, gloas_slot: Option<u64>) -> StateFacts {
        let gloas = match (gloas_slot, state.field("latest_block_hash")) {
            (Some(fork_slot), Some(hash)) => Some(GloasFacts {
                fork_slot,
                latest_block_hash: hash.try_into().unwrap_or_default(),
                latest_bid_root: state
                    .field("latest_execution_payload_bid")
                    .and_then(|b| {
                        ssz::container_root(&crate::consensus::types::EXECUTION_PAYLOAD_BID, b).ok()
                    })
                    .unwrap_or_default(),
                availability: state
                    .field("execution_payload_availability")
                    .unwrap_or_default()
                    .to_vec(),
            }),
            _ => None,
        };
        StateFacts {
            builders: state
                .field("builders")
                .map(|_| state.builder_count().map_or(u64::MAX, |n| n as u64)),
            gloas,
            block_roots: state.block_roots().to_vec(),
            state_roots: state.state_roots().to_vec(),
            genesis_time: state.genesis_time(),
            // A registry that does not decode is reported by the state's checks; no withdrawal is judged by it.
            validators: state.validator_count().map_or(u64::MAX, |v| v as u64),
            spec: state.spec(),
            latest_block_header: state.latest_block_header(),
            payload_header: state
                .field("latest_execution_payload_header")
                .map(<[u8]>::to_vec),
        }
    }

    pub(super) fn block_root(&self, slot: u64) -> [u8; 32] {
        root_at(&self.block_roots, slot)
    }
    pub(super) fn state_root(&self, slot: u64) -> [u8; 32] {
        root_at(&self.state_roots, slot)
    }
}

pub(super) fn root_at(v: &[u8], slot: u64) -> [u8; 32] {
    let i = (slot % SLOTS_PER_ERA) as usize * 32;
    v.get(i..i + 32)
        .and_then(|b| b.try_into().ok())
        .unwrap_or_default()
}

/// Checks the name's hash8 and the historical accumulator against the state's own vectors.
pub(super) fn check_history(
    file: &EraFile,
    state: &BeaconState<'_>,
    offset: u64,
    name: Option<&ArchiveName>,
    beacon: &mut BeaconReport,
    report: &mut FileReport,
) {
    let path = file.path();
    let era = file.era();
    let (roots, summaries) = match (state.historical_roots(), state.historical_summaries()) {
        (Ok(r), Ok(s)) => (r, s),
        (Err(e), _) | (_, Err(e)) => {
            report.error(
                FormatError::at(offset, FormatErrorKind::Index(format!("BeaconState: {e}")))
                    .in_file(path),
            );
            return;
        }
    };
    let entries = (roots.len() + summaries.len()) as u64;
    let expected_short: [u8; 32] = if era == 0 {
        state.genesis_validators_root()
    } else {
        if entries != era {
            report.error(
                mismatch(
                    offset,
                    "historical entries (historical_roots + historical_summaries)",
                    format!("{era} (one per completed era)"),
                    entries,
                )
                .in_file(path),
            );
        }
        // The entry this era's epoch transition appended, computed from the state's own vectors.
        let own = (
            ssz::hash_tree_root(&ROOTS_VECTOR, state.block_roots()).unwrap_or_default(),
            ssz::hash_tree_root(&ROOTS_VECTOR, state.state_roots()).unwrap_or_default(),
        );
        let mut two = [0u8; 64];
        two[..32].copy_from_slice(&own.0);
        two[32..].copy_from_slice(&own.1);
        let own_root = merkle::merkleize(&two, 2);
        let last = match summaries.last() {
            Some(s) => {
                if *s != own {
                    report.error(
                        mismatch(
                            offset,
                            "last historical summary (block_roots, state_roots roots)",
                            format!("({}, {})", hex0x(&own.0), hex0x(&own.1)),
                            format!("({}, {})", hex0x(&s.0), hex0x(&s.1)),
                        )
                        .in_file(path),
                    );
                }
                let mut two = [0u8; 64];
                two[..32].copy_from_slice(&s.0);
                two[32..].copy_from_slice(&s.1);
                merkle::merkleize(&two, 2)
            }
            None => {
                let last = roots.last().copied().unwrap_or_default();
                if last != own_root {
                    report.error(
                        mismatch(
                            offset,
                            "last historical root (HistoricalBatch of the state's block_roots and state_roots)",
                            hex0x(&own_root),
                            hex0x(&last),
                        )
                        .in_file(path),
                    );
                }
                last
            }
        };
        beacon.historical_root = Some(hex0x(&last));
        last
    };
    if let Some(n) = name {
        if n.short_root != expected_short[..4] {
            report.error(
                mismatch(
                    0,
                    if era == 0 {
                        "file name hash (genesis_validators_root)"
                    } else {
                        "file name hash (last historical root)"
                    },
                    hex::encode(&expected_short[..4]),
                    hex::encode(n.short_root),
                )
                .in_file(path),
            );
        }
    }
}

/// Checks that need blocks in order: parent roots, empty slots, the payload chain, the latest header.
pub(super) fn sequential_checks(
    file: &EraFile,
    sf: &StateFacts,
    blocks: &[SlotFacts],
    beacon: &mut BeaconReport,
    report: &mut FileReport,
) {
    let Some(index) = file.block_index() else {
        return;
    };
    let start = index.start_slot;
    let empty = check_slot_chain(file.path(), index, sf, blocks, report);
    beacon.empty_slots = empty;
    beacon.links = era_links(index, sf, blocks);
    let state_at = index.record_offset;
    beacon.bids = check_bids(
        sf,
        blocks,
        start,
        |slot| matches!(index.offsets.get((slot - start) as usize), Some(None)),
        state_at,
        report,
    );
    check_latest_block_header(file, index, sf, blocks, empty, report);
}

/// Walks the era's slots in order: an empty slot keeps the previous slot's block root, a block's parent_root
/// is the previous slot's root, and each execution payload follows the one before (a block that failed its own
/// checks restarts that chain). Returns the number of empty slots.
fn check_slot_chain(
    path: &Path,
    index: &SlotIndex,
    sf: &StateFacts,
    blocks: &[SlotFacts],
    report: &mut FileReport,
) -> u64 {
    let start = index.start_slot;
    let mut next = blocks.iter().peekable();
    let mut empty = 0u64;
    let mut prev_payload: Option<&(u64, [u8; 32], [u8; 32])> = None;
    for (i, entry) in index.offsets.iter().enumerate() {
        let slot = start + i as u64;
        let prev_root = (i > 0).then(|| sf.block_root(slot - 1));
        if entry.is_none() {
            empty += 1;
            if let Some(p) = prev_root {
                if sf.block_root(slot) != p {
                    report.error(
                        mismatch(
                            index.record_offset,
                            "block root of an empty slot (the previous slot's root)",
                            hex0x(&p),
                            hex0x(&sf.block_root(slot)),
                        )
                        .in_file(path)
                        .in_slot(slot),
                    );
                }
            }
            continue;
        }
        let Some(b) = next.next_if(|b| b.slot == slot) else {
            // Failed its own checks (already reported): the payload chain restarts after it.
            prev_payload = None;
            continue;
        };
        if let Some(p) = prev_root {
            if b.parent_root != p {
                report.error(
                    mismatch(
                        b.record_offset,
                        "parent_root (the previous slot's block root)",
                        hex0x(&p),
                        hex0x(&b.parent_root),
                    )
                    .in_file(path)
                    .in_slot(slot),
                );
            }
        }
        if let Some(p) = &b.payload {
            if let Some(q) = prev_payload {
                if p.0 != q.0 + 1 || p.2 != q.1 {
                    report.error(
                        mismatch(
                            b.record_offset,
                            "execution parent (previous payload's number + 1 and hash)",
                            format!("{} {}", q.0 + 1, hex0x(&q.1)),
                            format!("{} {}", p.0, hex0x(&p.2)),
                        )
                        .in_file(path)
                        .in_slot(slot),
                    );
                }
            }
            prev_payload = Some(p);
        }
    }
    empty
}

/// What the checks between files need of this era: its first and last block roots, its execution chain's
/// ends and era-end payloads, the state link of an empty first slot, and the Gloas bid links.
fn era_links(index: &SlotIndex, sf: &StateFacts, blocks: &[SlotFacts]) -> EraLinks {
    let start = index.start_slot;
    EraLinks {
        previous_root: match (index.offsets.first(), blocks.first()) {
            (Some(None), _) => Some(sf.block_root(start)),
            (Some(Some(_)), Some(b)) if b.slot == start => Some(b.parent_root),
            _ => None,
        },
        last_root: Some(sf.block_root(start + SLOTS_PER_ERA - 1)),
        first_payload: blocks.iter().find_map(|b| b.payload).map(|p| (p.0, p.2)),
        execution_head: execution_head(sf),
        payload_marks: {
            let payloads: Vec<(u64, [u8; 32])> = blocks
                .iter()
                .filter_map(|b| b.payload)
                .map(|p| (p.0, p.1))
                .collect();
            let last = payloads.last().copied();
            payloads
                .into_iter()
                .filter(|(n, _)| n % crate::formats::execution::BLOCKS_PER_ERA == 8191)
                .chain(last)
                .collect()
        },
        state_root: None,
        first_slot_state_root: matches!(index.offsets.first(), Some(None))
            .then(|| sf.state_root(start)),
        last_link: last_link(blocks),
        first_bid: first_bid(blocks),
        last_revealed: last_revealed(blocks),
    }
}

/// The state's latest_block_header is the era's last block (and its payload header that block's payload),
/// when every block of the era verified; with no block in the era, it is older than the era.
fn check_latest_block_header(
    file: &EraFile,
    index: &SlotIndex,
    sf: &StateFacts,
    blocks: &[SlotFacts],
    empty: u64,
    report: &mut FileReport,
) {
    let (path, start, state_at) = (file.path(), index.start_slot, index.record_offset);
    let h = &sf.latest_block_header;
    match blocks.last() {
        Some(last) if blocks.len() as u64 + empty == index.offsets.len() as u64 => {
            let found = (
                h.slot,
                h.proposer_index,
                h.parent_root,
                h.state_root,
                h.body_root,
            );
            let want = (
                last.slot,
                last.proposer,
                last.parent_root,
                last.state_root,
                last.body_root,
            );
            if found != want || h.root() != last.root {
                report.error(
                    mismatch(
                        state_at,
                        "state.latest_block_header (the era's last block)",
                        format!("slot {} root {}", last.slot, hex0x(&last.root)),
                        format!("slot {} root {}", h.slot, hex0x(&h.root())),
                    )
                    .in_file(path),
                );
            }
            if let Some((root, fork)) = last.payload_root {
                check_payload_header(file, sf, root, fork, state_at, report);
            }
        }
        Some(_) => {}
        None => {
            if h.slot >= start {
                report.error(
                    mismatch(
                        state_at,
                        "state.latest_block_header slot (no block in this era)",
                        format!("< {start}"),
                        h.slot,
                    )
                    .in_file(path),
                );
            }
        }
    }
}

/// The state's `latest_execution_payload_header` commits to the era's last payload: same root when the
/// forks agree (the header's lists are the payload's list roots), else the same block hash.
pub(super) fn check_payload_header(
    file: &EraFile,
    sf: &StateFacts,
    payload_root: [u8; 32],
    payload_spec: Spec,
    offset: u64,
    report: &mut FileReport,
) {
    let Some(bytes) = sf.payload_header.as_deref() else {
        return;
    };
    let Some(c) = ssz::field_container(sf.spec.state_schema(), "latest_execution_payload_header")
    else {
        return;
    };
    let same_schema = match (payload_container(payload_spec), payload_container(sf.spec)) {
        (Some(a), Some(b)) => std::ptr::eq(a, b),
        _ => false,
    };
    if same_schema {
        match ssz::container_root(c, bytes) {
            Ok(r) if r == payload_root => {}
            Ok(r) => report.error(
                mismatch(
                    offset,
                    "state.latest_execution_payload_header root (the last payload's root)",
                    hex0x(&payload_root),
                    hex0x(&r),
                )
                .in_file(file.path()),
            ),
            Err(e) => report.error(
                FormatError::at(offset, FormatErrorKind::Index(format!("BeaconState: {e}")))
                    .in_file(file.path()),
            ),
        }
    }
}

/// The execution chain head a state records: `latest_execution_payload_header` (number, hash), `None` before
/// bellatrix and before the merge (zero hash).
fn execution_head(sf: &StateFacts) -> Option<(u64, [u8; 32])> {
    let c = ssz::field_container(sf.spec.state_schema(), "latest_execution_payload_header")?;
    let v = ssz::View::new(c, sf.payload_header.as_deref()?).ok()?;
    let hash = v.bytes32("block_hash")?;
    (hash != [0u8; 32]).then_some((v.u64("block_number")?, hash))
}

/// The `ExecutionPayload` container of `fork` (`None` before bellatrix).
pub(super) fn payload_container(spec: Spec) -> Option<&'static ssz::Container> {
    ssz::field_container(
        ssz::field_container(spec.block_schema(), "body")?,
        "execution_payload",
    )
}

/// The era's state against its Gloas blocks (see [`super::bid`]): the latest bid and block hash, the payload availability bits;
/// and the bid counts into the report.
pub(super) fn check_bids(
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
        report.error(e.in_file(Path::new(&path)));
    }
    Some(counts)
}

/// The link the era's last block leaves for the next era's first (its bid's, or its payload's).
fn last_link(blocks: &[SlotFacts]) -> Option<ParentLink> {
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

/// `(slot, block_hash)` of the last bid of an era's blocks whose payload a later block of the era revealed
/// (its bid built on that hash): the highest execution block the era file vouches for past Gloas.
fn last_revealed(blocks: &[SlotFacts]) -> Option<(u64, [u8; 32])> {
    blocks.windows(2).rev().find_map(|w| {
        let (parent, child) = (&w[0], &w[1]);
        let p = parent.bid?;
        (child.bid?.parent_revealed == Some(true)).then_some((parent.slot, p.block_hash))
    })
}

/// [`FirstBid`] of an era's blocks.
fn first_bid(blocks: &[SlotFacts]) -> Option<FirstBid> {
    let b = blocks.first()?;
    let x = b.bid?;
    x.parent_revealed.is_none().then_some(FirstBid {
        slot: b.slot,
        record_offset: b.record_offset,
        parent_block_hash: x.parent_block_hash,
        parent_requests: x.parent_requests,
    })
}
