//! The checks between files, run once every file has its own report: consecutive era1 files chain by parent
//! hash and total difficulty; consecutive era files by the boundary block root, the state link of an empty first
//! slot and the execution chain, then era states are anchored ([`super::anchor`]). They read only the reports
//! (and an era1 file's first header), so a report kept from an earlier run links like a fresh one.

use super::hex0x;
use super::report::FileReport;
use super::VerifyOptions;
use crate::execution::header::HeaderView;
use crate::formats::era::SLOTS_PER_ERA;
use crate::formats::era1::{BlockDecoders, Era1File};
use std::path::Path;

/// Chains era1 reports of one network by block number: each file's first parent hash (`parent_of`, read from
/// the file: [`first_parent_hash`], or kept from when a streamed file was there) is the previous file's last
/// block hash, and its initial total difficulty the previous file's final one.
pub fn link_era1(reports: &mut [FileReport], parent_of: impl Fn(&FileReport) -> Option<String>) {
    let mut order: Vec<usize> = (0..reports.len())
        .filter(|&i| reports[i].first_block.is_some())
        .collect();
    order.sort_by_key(|&i| (reports[i].network.clone(), reports[i].first_block));
    for w in order.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (ra, rb) = (&reports[a], &reports[b]);
        if ra.network != rb.network || ra.last_block.map(|l| l + 1) != rb.first_block {
            continue;
        }
        // The first block's parent is only known from the file; re-read it cheaply.
        let parent = parent_of(rb);
        let (last_hash, final_td, initial_td) = (
            ra.last_block_hash.clone(),
            ra.final_total_difficulty.clone(),
            rb.initial_total_difficulty.clone(),
        );
        let prev_file = ra.file.clone();
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
        let rb = &mut reports[b];
        if let (Some(f), Some(i)) = (final_td, initial_td) {
            if f != i {
                rb.error(format!("{}: total difficulty before block {}: expected {f} (end of previous file), found {i}", rb.file, rb.first_block.unwrap_or(0)));
            }
        }
    }
}

/// The parent hash of an era1 file's first block, `0x`-hex.
pub fn first_parent_hash(path: &Path) -> Option<String> {
    let file = Era1File::open(path).ok()?;
    let t = file.block(0).ok()?;
    let mut dec = BlockDecoders::default();
    let raw = dec.header.decompress(t.header.data).ok()?;
    Some(hex0x(HeaderView::decode(raw).ok()?.parent_hash()))
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
