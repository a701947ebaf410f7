//! Whether a verified execution file (era1 or ere) is the canonical chain, and by which anchor
//! ([`crate::canonical`]): its era's accumulator root against the EIP-7643 accumulator (the file's pre-merge
//! blocks), and each `Proof` record of a default-profile ere file against the accumulator, `historical_roots` or
//! the historical summaries given. The outcome goes into the report's `canonical` and `canonical_detail`; a root
//! or proof that contradicts its anchor fails the file.

use super::report::{CanonicalDetail, FileReport};
use super::VerifyOptions;
use crate::canonical::{canonical_era1_root, verify_proof, Anchors, BlockId, NotProven};
use crate::formats::execution::BLOCKS_PER_ERA;
use crate::formats::ExecutionArchive;
use crate::formats::MappedArchive;
use crate::network::Network;
use std::collections::BTreeMap;

/// Checks one block's proof against the anchors `opts` and the network give; the anchor's name when proven.
pub(super) fn check_proof(
    network: &Network,
    block: &BlockId,
    proof: &super::proof::BlockProof<'_>,
    opts: &VerifyOptions,
) -> Result<String, NotProven> {
    let mut anchors = Anchors::embedded(network);
    if let Some(own) = &opts.accumulator {
        anchors.accumulator = Some(own.view());
    }
    let anchors = match &opts.historical_summaries {
        Some(s) => anchors.with_summaries(s),
        None => anchors,
    };
    verify_proof(network, block, proof.proof_type, proof.ssz, &anchors)
        .map(|p| p.anchor.to_string())
}

/// What the block pass found of a file's proofs.
pub(super) struct ProofCounts {
    /// Blocks proven by their proof, by anchor name.
    pub(super) proven: BTreeMap<String, u64>,
    /// Blocks whose proof had no anchor to reach.
    pub(super) unanchored: u64,
    /// Why (the first one).
    pub(super) unanchored_reason: Option<String>,
}

/// Sets the report's `canonical` and `canonical_detail` from the era's accumulator root and the block proofs;
/// a contradiction is an error of the file. Nothing is claimed for a file that failed its own checks.
pub(super) fn file_canonical(
    file: &ExecutionArchive,
    network: Option<&Network>,
    opts: &VerifyOptions,
    proofs: ProofCounts,
    report: &mut FileReport,
) {
    if !report.ok {
        return;
    }
    let mut detail = CanonicalDetail::default();
    let reason = |d: &mut CanonicalDetail, r: String| {
        d.reason.get_or_insert(r);
    };
    let Some(net) = network else {
        detail.not_proven = report.blocks;
        reason(
            &mut detail,
            "no network: nothing to check the blocks against".into(),
        );
        report.canonical_detail = Some(detail);
        return;
    };
    let has_proofs = file.holds().proofs;
    // A file of pre-merge history (era1) holds only pre-merge blocks; an ere file counted its own.
    let pre_merge = match (file.holds().post_merge, &report.ere) {
        (false, _) => report.blocks,
        (_, Some(x)) => x.pre_merge_blocks,
        _ => 0,
    };
    let mut contradicted = false;
    // The pre-merge blocks as a whole: the era's accumulator root, recomputed from the headers and total
    // difficulties by the sequential checks. Per-block type-0 proofs, when the file has them, count those blocks.
    if pre_merge > 0 {
        let era = file.first_block() / BLOCKS_PER_ERA;
        let root = report
            .accumulator_root
            .as_deref()
            .and_then(|h| hex::decode(h.trim_start_matches("0x")).ok())
            .and_then(|b| <[u8; 32]>::try_from(b).ok());
        let check = |r: [u8; 32]| match &opts.accumulator {
            Some(own) => own.view().check_era_root(era, &r),
            None => canonical_era1_root(net, era, &r),
        };
        match root.map(check) {
            Some(Ok(proven)) if !has_proofs => {
                *detail.proven.entry(proven.anchor.to_string()).or_default() += pre_merge;
            }
            Some(Ok(_)) => {}
            Some(Err(e)) if e.is_unanchored() => {
                if !has_proofs {
                    detail.not_proven += pre_merge;
                }
                reason(&mut detail, e.to_string());
            }
            Some(Err(e)) => {
                contradicted = true;
                report.error(format!(
                    "{}: not {}'s canonical history: era {era}: {e}",
                    file.path().display(),
                    net.name
                ));
            }
            None if !has_proofs => {
                detail.not_proven += pre_merge;
                reason(
                    &mut detail,
                    "no total difficulties: the era's accumulator root cannot be recomputed".into(),
                );
            }
            None => {}
        }
    }
    if has_proofs {
        for (anchor, n) in proofs.proven {
            *detail.proven.entry(anchor).or_default() += n;
        }
        detail.not_proven += proofs.unanchored;
        if let Some(r) = proofs.unanchored_reason {
            reason(&mut detail, r);
        }
    } else if report.blocks > pre_merge {
        detail.not_proven += report.blocks - pre_merge;
        reason(
            &mut detail,
            "no proofs in the file (noproofs profile): post-merge blocks are proven by their Portal proofs".into(),
        );
    }
    let proven: u64 = detail.proven.values().sum();
    report.canonical = if contradicted {
        Some(false)
    } else if detail.not_proven == 0 && proven == report.blocks {
        Some(true)
    } else {
        None
    };
    report.canonical_detail = Some(detail);
}

/// The `historical_summaries` of an era file's BeaconState (the state at the era's end slot): a trusted anchor
/// for the proofs of every Capella-and-later block before that slot, as far as the state itself is trusted (see
/// its report's `state_anchor`).
pub fn summaries_from_era_file(
    path: &std::path::Path,
    network: &Network,
) -> Result<crate::canonical::HistoricalSummaries, String> {
    use crate::consensus::{BeaconState, Spec};
    let file = crate::formats::era::EraFile::open(path).map_err(|e| e.to_string())?;
    let record = file.state_record().map_err(|e| e.to_string())?;
    let mut dec = crate::formats::era::state_decoder();
    let bytes = dec
        .decompress(record.data)
        .map_err(|e| format!("{}: BeaconState: {e}", path.display()))?;
    let state = BeaconState::new(bytes, Spec::at_slot(file.state_slot(), network))
        .map_err(|e| format!("{}: BeaconState: {e}", path.display()))?;
    crate::canonical::HistoricalSummaries::from_state(network, &state)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Historical summaries from a file: an era file (its state's), or the SSZ of a `historical_summaries` list
/// written `PATH@SLOT` with the slot of the state it was taken from (or named `..._at_slot_<SLOT>.ssz`).
pub fn summaries_from_file(
    spec: &str,
    network: &Network,
) -> Result<crate::canonical::HistoricalSummaries, String> {
    let (path, slot) = match spec.rsplit_once('@') {
        Some((p, s)) if s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty() => {
            (p, s.parse::<u64>().ok())
        }
        _ => (spec, None),
    };
    let path = std::path::Path::new(path);
    if crate::formats::Holds::of_path(path).state {
        return summaries_from_era_file(path, network);
    }
    let slot = slot
        .or_else(|| {
            let stem = path.file_stem()?.to_str()?;
            stem.rsplit_once("_at_slot_")?.1.parse().ok()
        })
        .ok_or_else(|| {
            format!(
                "{spec}: which slot's summaries? write PATH@SLOT (the state's slot), or pass an era file"
            )
        })?;
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    crate::canonical::HistoricalSummaries::from_ssz(network, slot, &bytes)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Which eras of a set of verified files are proven canonical, per network: what `verify --canonical` prints.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CanonicalSummary {
    /// One entry per network of the files.
    pub networks: Vec<NetworkCanonical>,
}

/// One network's eras of execution history (era1 and ere files), by what the files proved.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct NetworkCanonical {
    /// The network.
    pub network: String,
    /// Eras whose every block is proven canonical (ranges, inclusive).
    pub proven: Vec<(u64, u64)>,
    /// Eras of a file that contradicts its anchor, or failed verification.
    pub wrong: Vec<u64>,
    /// Eras whose files verified but could not all be proven (no anchor, no proofs), with the first reason.
    pub unproven: Vec<(u64, String)>,
    /// Eras of the network's pre-merge accumulator (mainnet: 0 to 1896) no file of the set holds.
    pub missing: Vec<(u64, u64)>,
}

/// Sums up `reports` (era files are left out: they are anchored by their states, see `state_anchor`).
pub fn summarize(reports: &[FileReport]) -> CanonicalSummary {
    let mut by_net: BTreeMap<String, BTreeMap<u64, Option<Result<(), String>>>> = BTreeMap::new();
    for r in reports.iter().filter(|r| r.beacon.is_none()) {
        let Some(era) = r.era else { continue };
        let state = match (r.ok, r.canonical) {
            (true, Some(true)) => Some(Ok(())),
            (true, None) => Some(Err(r
                .canonical_detail
                .as_ref()
                .and_then(|d| d.reason.clone())
                .unwrap_or_default())),
            _ => None,
        };
        let eras = by_net.entry(r.network.clone()).or_default();
        // Of several files of one era, a proven one decides; a wrong one is reported unless another proves it.
        let slot = eras.entry(era).or_insert(None);
        match (&slot, state) {
            (Some(Ok(())), _) => {}
            (_, Some(Ok(()))) => *slot = Some(Ok(())),
            (None, s) => *slot = s,
            _ => {}
        }
    }
    let mut out = CanonicalSummary::default();
    for (network, eras) in by_net {
        let mut n = NetworkCanonical {
            network: network.clone(),
            ..Default::default()
        };
        for (&era, state) in &eras {
            match state {
                Some(Ok(())) => push_range(&mut n.proven, era),
                Some(Err(reason)) => n.unproven.push((era, reason.clone())),
                None => n.wrong.push(era),
            }
        }
        if let Some(acc) = Network::by_name(&network)
            .ok()
            .and_then(|net| crate::canonical::HistoricalHashesAccumulator::of(&net))
        {
            for era in 0..acc.eras() {
                if !eras.contains_key(&era) {
                    push_range(&mut n.missing, era);
                }
            }
        }
        out.networks.push(n);
    }
    out
}

/// Adds `era` to sorted inclusive ranges, extending the last when adjacent.
fn push_range(ranges: &mut Vec<(u64, u64)>, era: u64) {
    match ranges.last_mut() {
        Some((_, last)) if *last + 1 == era => *last = era,
        _ => ranges.push((era, era)),
    }
}
