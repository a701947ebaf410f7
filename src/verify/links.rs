//! The checks between files, run once every file has its own report: consecutive era1 and ere files chain by
//! parent hash and total difficulty, and files of the same blocks must agree (era1 against ere, ere against the
//! payloads of era files); consecutive era files chain by the boundary block root, the state link of an empty
//! first slot and the execution chain, then era states are anchored ([`super::anchor`]). They read only the
//! reports (and a file's first header, or one block's), so a report kept from an earlier run links like a fresh
//! one.

use super::hex0x;
use super::report::FileReport;
use super::VerifyOptions;
use crate::execution::header::HeaderView;
use crate::formats::era::SLOTS_PER_ERA;
use crate::formats::execution::BlockDecoders;
use crate::formats::ExecutionArchive;
use std::path::Path;

/// Chains execution reports (era1 and ere) of one network by block number: each file's first parent hash
/// (`parent_of`, read from the file: [`first_parent_hash`], or kept from when a streamed file was there) is the
/// previous range's last block hash, and its initial total difficulty that range's final one. Files of the same
/// blocks (an era1 and an ere file of one era, or two ere profiles) are compared first ([`cross_check_same_blocks`]);
/// each file then links to the first file of the range before it.
pub fn link_execution(
    reports: &mut [FileReport],
    parent_of: impl Fn(&FileReport) -> Option<String>,
) {
    cross_check_same_blocks(reports);
    let mut order: Vec<usize> = (0..reports.len())
        .filter(|&i| reports[i].first_block.is_some())
        .collect();
    order.sort_by_key(|&i| (reports[i].network.clone(), reports[i].first_block, i));
    for (pos, &b) in order.iter().enumerate() {
        // The first report of the range ending right before b's first block.
        let Some(&a) = order[..pos].iter().find(|&&a| {
            reports[a].network == reports[b].network
                && reports[a].last_block.map(|l| l + 1) == reports[b].first_block
        }) else {
            continue;
        };
        let ra = &reports[a];
        let (last_hash, final_td, prev_file) = (
            ra.last_block_hash.clone(),
            ra.final_total_difficulty.clone(),
            ra.file.clone(),
        );
        // The first block's parent is only known from the file; re-read it cheaply.
        let parent = parent_of(&reports[b]);
        let rb = &mut reports[b];
        if let (Some(p), Some(h)) = (parent, last_hash) {
            if p != h {
                rb.error(format!(
                    "{}: block {}: parent hash: expected {h} (last block of {}), found {p}",
                    rb.file,
                    rb.first_block.unwrap_or(0),
                    prev_file
                ));
            }
        }
        if let (Some(f), Some(i)) = (final_td, rb.initial_total_difficulty.clone()) {
            if f != i {
                rb.error(format!("{}: total difficulty before block {}: expected {f} (end of previous file), found {i}", rb.file, rb.first_block.unwrap_or(0)));
            }
        }
    }
}

/// Execution files of one network that hold exactly the same blocks (an era1 file and the ere file of the same
/// era, or ere files of two profiles) must agree: first and last block hash (each file's own hash chain then
/// makes every header, and through the roots every body and receipt, the same), total difficulty before and
/// after, and the accumulator root. Each says what it was compared with in `cross_checked`.
pub fn cross_check_same_blocks(reports: &mut [FileReport]) {
    let key = |r: &FileReport| (r.network.clone(), r.first_block, r.last_block);
    for b in 0..reports.len() {
        if reports[b].first_block.is_none() || !reports[b].ok {
            continue;
        }
        for a in 0..b {
            if key(&reports[a]) != key(&reports[b]) || !reports[a].ok {
                continue;
            }
            let (ra, rb) = (&reports[a], &reports[b]);
            let mut differ = Vec::new();
            for (what, x, y) in [
                (
                    "first block hash",
                    &ra.first_block_hash,
                    &rb.first_block_hash,
                ),
                ("last block hash", &ra.last_block_hash, &rb.last_block_hash),
                (
                    "total difficulty before the first block",
                    &ra.initial_total_difficulty,
                    &rb.initial_total_difficulty,
                ),
                (
                    "total difficulty after the last block",
                    &ra.final_total_difficulty,
                    &rb.final_total_difficulty,
                ),
                (
                    "accumulator root",
                    &ra.accumulator_root,
                    &rb.accumulator_root,
                ),
            ] {
                if let (Some(x), Some(y)) = (x, y) {
                    if x != y {
                        differ.push(format!("{what}: {} has {x}, {} has {y}", ra.file, rb.file));
                    }
                }
            }
            let range = format!(
                "{}..={}",
                ra.first_block.unwrap_or(0),
                ra.last_block.unwrap_or(0)
            );
            let (fa, fb) = (ra.file.clone(), rb.file.clone());
            if differ.is_empty() {
                reports[a]
                    .cross_checked
                    .push(format!("blocks {range} agree with {fb}"));
                reports[b]
                    .cross_checked
                    .push(format!("blocks {range} agree with {fa}"));
            } else {
                let msg = format!(
                    "blocks {range} differ between {fa} and {fb}: {}",
                    differ.join("; ")
                );
                reports[a].error(format!("{fa}: {msg}"));
                reports[b].error(format!("{fb}: {msg}"));
            }
        }
    }
}

/// The parent hash of an era1 or ere file's first block, `0x`-hex.
pub fn first_parent_hash(path: &Path) -> Option<String> {
    let file = ExecutionArchive::open(path).ok()?;
    Some(hex0x(
        HeaderView::decode(&header_rlp(&file, 0)?)
            .ok()?
            .parent_hash(),
    ))
}

/// The hash of block `number` of an era1 or ere file, `0x`-hex, read from the file.
pub fn block_hash_in(path: &Path, number: u64) -> Option<String> {
    let file = ExecutionArchive::open(path).ok()?;
    let i = number.checked_sub(file.first_block())?;
    Some(hex0x(
        &crate::crypto::keccak::keccak256(&header_rlp(&file, i)?).0,
    ))
}

/// The decompressed header of the `i`-th block of `file`.
fn header_rlp(file: &ExecutionArchive, i: u64) -> Option<Vec<u8>> {
    let t = file.block(i).ok()?;
    let mut dec = BlockDecoders::default();
    dec.header
        .decompress(t.header.data)
        .ok()
        .map(<[u8]>::to_vec)
}

/// Execution files (ere) against the era files whose execution payloads hold the same post-merge blocks. Both
/// kinds chain their blocks by parent hash within the file, so the two agree on every block they share as soon
/// as they agree on the highest one: that is the era file's last payload (hashed from the ere file with
/// `hash_in`, which reads local files) or the ere file's last block (found among the era file's payloads at era
/// ends, [`crate::verify::report::EraLinks::payload_marks`]). A disagreement fails both files.
pub fn cross_check_payloads(
    execution: &mut [FileReport],
    era: &mut [FileReport],
    hash_in: impl Fn(&FileReport, u64) -> Option<String>,
) {
    for x in execution.iter_mut() {
        let (Some(a), Some(b)) = (x.first_block, x.last_block) else {
            continue;
        };
        if !x.ok {
            continue;
        }
        for e in era.iter_mut() {
            let Some(beacon) = e.beacon.as_ref() else {
                continue;
            };
            let (Some(f), Some(l)) = (e.first_block, e.last_block) else {
                continue;
            };
            if e.network != x.network || !e.ok || l < a || f > b {
                continue;
            }
            // The highest block both hold, and each side's hash of it.
            let top = b.min(l);
            let era_hash = beacon
                .links
                .payload_marks
                .iter()
                .find(|(n, _)| *n == top)
                .map(|(_, h)| hex0x(h));
            let ere_hash = if top == b {
                x.last_block_hash.clone()
            } else {
                hash_in(x, top)
            };
            let range = format!("{}..={top}", a.max(f));
            match (era_hash, ere_hash) {
                (Some(h), Some(g)) if h == g => {
                    x.cross_checked
                        .push(format!("blocks {range} agree with the execution payloads of {}", e.file));
                    e.cross_checked
                        .push(format!("execution blocks {range} agree with {}", x.file));
                }
                (Some(h), Some(g)) => {
                    let msg = format!(
                        "block {top}: hash {g} in {}, but the execution payload in {} has {h}",
                        x.file, e.file
                    );
                    x.error(format!("{}: {msg}", x.file));
                    e.error(format!("{}: {msg}", e.file));
                }
                _ => x.warnings.push(format!(
                    "blocks {range} are also in {}, but no block hash both files give could be compared (block {top})",
                    e.file
                )),
            }
        }
    }
}

/// Chains era reports of one network by era number, then anchors their states with `opts.trusted_states`.
pub fn link_era(reports: &mut [FileReport], opts: &VerifyOptions) {
    let mut order: Vec<usize> = (0..reports.len())
        .filter(|&i| reports[i].era.is_some() && reports[i].beacon.is_some())
        .collect();
    order.sort_by_key(|&i| (reports[i].network.clone(), reports[i].era));
    for w in order.windows(2) {
        let (a, b) = (w[0], w[1]);
        if reports[a].network != reports[b].network
            || reports[a].era.map(|e| e + 1) != reports[b].era
        {
            continue;
        }
        let prev = reports[a]
            .beacon
            .as_ref()
            .map(|x| x.links.clone())
            .unwrap_or_default();
        let prev_file = reports[a].file.clone();
        let rb = &mut reports[b];
        let next = rb
            .beacon
            .as_ref()
            .map(|x| x.links.clone())
            .unwrap_or_default();
        if let (Some(want), Some(found)) = (prev.last_root, next.previous_root) {
            if want != found && rb.era != Some(1) {
                rb.error(format!(
                    "{}: boundary block root: expected {} (last slot of {prev_file}), found {}",
                    rb.file,
                    hex0x(&want),
                    hex0x(&found)
                ));
            }
        }
        // The state of era N is the state at slot N * 8192 with no block applied. When that slot is empty,
        // the slot processing that leaves it (phase0 `process_slot`) records exactly that state's root in
        // `state_roots[N * 8192 % 8192]`, which era N + 1's state still holds: the one link from a state to
        // the next that needs no state transition.
        if let (Some(want), Some(found)) = (prev.state_root, next.first_slot_state_root) {
            if want != found {
                rb.error(format!(
                    "{}: state_roots entry of slot {} (an empty slot): expected {} (hash_tree_root of the state of {prev_file}), found {}",
                    rb.file,
                    rb.beacon.as_ref().map_or(0, |b| b.state_slot.saturating_sub(SLOTS_PER_ERA)),
                    hex0x(&want),
                    hex0x(&found)
                ));
            }
        }
        // Gloas: the first bid of this era builds on the previous era's last block (bid or payload), once the
        // two files are known to be consecutive.
        if let (Some(link), Some(f), true) = (
            prev.last_link,
            next.first_bid,
            prev.last_root.is_some() && prev.last_root == next.previous_root,
        ) {
            match super::bid::judge_parent(
                f.parent_block_hash,
                f.parent_requests,
                &link,
                f.record_offset,
            ) {
                Ok(revealed) => {
                    if let Some(bids) = rb.beacon.as_mut().and_then(|b| b.bids.as_mut()) {
                        if revealed {
                            bids.parents_revealed += 1;
                        } else {
                            bids.parents_withheld += 1;
                        }
                    }
                }
                Err(e) => {
                    let e = e.in_file(Path::new(&rb.file)).in_slot(f.slot);
                    rb.error(e);
                }
            }
        }
        if let (Some((n, h)), Some((first, parent))) = (prev.execution_head, next.first_payload) {
            if first != n + 1 || parent != h {
                rb.error(format!(
                    "{}: execution chain: expected block {} with parent {} (head of {prev_file}), found block {first} with parent {}",
                    rb.file,
                    n + 1,
                    hex0x(&h),
                    hex0x(&parent)
                ));
            }
        }
    }
    super::anchor::apply(reports, opts.trusted_states.as_deref());
}

/// What one side of [`cross_check_bids`] says of a slot: the execution block hash it holds for that slot, that it
/// holds none (`Absent`), or that it could not be read (`Unknown`: a remote file, a damaged record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AtSlot {
    /// The block of the slot, `0x`-hex.
    Hash(String),
    /// No block of that slot: the ere file has none, or the era file's bid for it was not revealed.
    Absent,
    /// Not known.
    Unknown,
}

/// ere files past Amsterdam against the era files whose bids (Gloas on) commit to the same execution blocks.
/// An ere block names its beacon slot (`slot_number`, EIP-7843); an era file holds, per slot, the bid's
/// `block_hash`, which the next block's bid confirms as revealed by building on it (`parent_block_hash`). Both
/// sides chain (parent hashes; bids on revealed bids), so they agree on every block of their overlap when they
/// agree on its highest slot: the era's last confirmed bid ([`crate::verify::report::EraLinks::last_revealed`],
/// hashed from the ere file with `ere_at`), or the ere file's last block when it ends inside the era (looked up
/// among the era's bids with `era_at`). A disagreement, or a block one side has and the other denies, fails both
/// files; a slot that could not be read is a warning.
pub fn cross_check_bids(
    execution: &mut [FileReport],
    era: &mut [FileReport],
    ere_at: impl Fn(&FileReport, u64) -> AtSlot,
    era_at: impl Fn(&FileReport, u64) -> AtSlot,
) {
    for x in execution.iter_mut() {
        let Some((xa, xb)) = x.ere.as_ref().and_then(|r| r.slots) else {
            continue;
        };
        if !x.ok {
            continue;
        }
        for e in era.iter_mut() {
            let Some(beacon) = e.beacon.as_ref() else {
                continue;
            };
            if beacon.bids.is_none() || e.network != x.network || !e.ok {
                continue;
            }
            let (lo, hi) = (
                beacon.state_slot.saturating_sub(SLOTS_PER_ERA),
                beacon.state_slot,
            );
            if xb < lo || xa >= hi {
                continue;
            }
            let revealed = beacon
                .links
                .last_revealed
                .filter(|(s, _)| (xa..=xb).contains(s));
            // The highest slot both can speak for, and each side's block of it.
            let (top, era_side, ere_side) = match revealed {
                Some((s, h)) => (
                    s,
                    AtSlot::Hash(hex0x(&h)),
                    match (s == xb, &x.last_block_hash) {
                        (true, Some(h)) => AtSlot::Hash(h.clone()),
                        _ => ere_at(x, s),
                    },
                ),
                None if xb < hi => (
                    xb,
                    era_at(e, xb),
                    x.last_block_hash
                        .clone()
                        .map_or(AtSlot::Unknown, AtSlot::Hash),
                ),
                None => {
                    x.warnings.push(format!(
                        "slots {}..={} of {} are also in {}, which revealed no payload among them that could be compared",
                        xa.max(lo), xb.min(hi - 1), x.file, e.file
                    ));
                    continue;
                }
            };
            let range = format!("{}..={top}", xa.max(lo));
            let fail = match (&era_side, &ere_side) {
                (AtSlot::Hash(h), AtSlot::Hash(g)) if h == g => {
                    x.cross_checked.push(format!(
                        "blocks of slots {range} agree with the execution payload bids of {}",
                        e.file
                    ));
                    e.cross_checked
                        .push(format!("execution blocks of slots {range} agree with {}", x.file));
                    None
                }
                (AtSlot::Hash(h), AtSlot::Hash(g)) => Some(format!(
                    "slot {top}: block {g} in {}, but the bid in {} commits to {h}",
                    x.file, e.file
                )),
                (AtSlot::Hash(h), AtSlot::Absent) => Some(format!(
                    "slot {top}: {} revealed the payload {h} of its bid, but {} has no block of that slot",
                    e.file, x.file
                )),
                (AtSlot::Absent, AtSlot::Hash(g)) => Some(format!(
                    "slot {top}: block {g} in {}, but {} has no revealed bid of that slot",
                    x.file, e.file
                )),
                _ => {
                    x.warnings.push(format!(
                        "slots {range} are also in {}, but no block hash both files give could be compared (slot {top})",
                        e.file
                    ));
                    None
                }
            };
            if let Some(msg) = fail {
                x.error(format!("{}: {msg}", x.file));
                e.error(format!("{}: {msg}", e.file));
            }
        }
    }
}

/// The hash of the block of beacon slot `slot` (its header's `slot_number`) in the ere file at `path`.
pub fn ere_block_at_slot(path: &Path, slot: u64) -> AtSlot {
    let Ok(file) = ExecutionArchive::open(path) else {
        return AtSlot::Unknown;
    };
    for i in 0..file.block_count() {
        let Some(raw) = header_rlp(&file, i) else {
            return AtSlot::Unknown;
        };
        let Ok(h) = HeaderView::decode(&raw) else {
            return AtSlot::Unknown;
        };
        match h.slot_number() {
            Some(s) if s == slot => return AtSlot::Hash(hex0x(&h.hash().0)),
            Some(s) if s > slot => return AtSlot::Absent,
            _ => {}
        }
    }
    AtSlot::Absent
}

/// The payload hash the bid of slot `slot` in the era file at `path` commits to, when a later block of the file
/// confirms it revealed (builds on it); `Absent` when the slot has no block, its block no bid, or the next block
/// built past it (withheld); `Unknown` when no later block of the file says.
pub fn era_bid_at_slot(path: &Path, slot: u64, network: &crate::network::Network) -> AtSlot {
    use crate::consensus::{SignedBeaconBlock, Spec};
    use crate::formats::e2store::MappedArchive;
    let Ok(file) = crate::formats::era::EraFile::open(path) else {
        return AtSlot::Unknown;
    };
    let mut dec = crate::formats::era::block_decoder();
    let mut bid_of = |s: u64| -> Option<Option<([u8; 32], [u8; 32])>> {
        let Some(rec) = file.block_record(s).ok()? else {
            return Some(None);
        };
        let bytes = dec.decompress(rec.data).ok()?;
        let block = SignedBeaconBlock::new(bytes, Spec::at_slot(s, network))
            .ok()?
            .message()
            .ok()?;
        let body = block.body().ok()?;
        let bid = body.bid()?.ok()?;
        Some(Some((bid.block_hash(), bid.parent_block_hash())))
    };
    let own = match bid_of(slot) {
        None => return AtSlot::Unknown,
        Some(None) => return AtSlot::Absent,
        Some(Some((hash, _))) => hash,
    };
    for next in slot + 1..file.state_slot() {
        match bid_of(next) {
            None => return AtSlot::Unknown,
            Some(None) => continue,
            Some(Some((_, parent))) if parent == own => return AtSlot::Hash(hex0x(&own)),
            Some(Some(_)) => return AtSlot::Absent,
        }
    }
    AtSlot::Unknown
}
