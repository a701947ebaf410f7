//! Full verification of era files (beacon-chain history): the state's root and its place in history, every
//! block against the state, and every post-merge execution payload against its own block hash.
//!
//! Spec facts relied on (consensus-specs phase0 `process_slot`, `process_historical_roots_update`; capella
//! `process_historical_summaries_update`; e2store-format-specs `era.md`):
//! - the era state is the state at slot `era * 8192` after slot processing, so `state.block_roots[s % 8192]`
//!   and `state.state_roots[s % 8192]` hold the block root and post-state root of every slot `s` of the
//!   era's blocks (`(era - 1) * 8192 .. era * 8192`); an empty slot repeats the previous block root;
//! - a block's `state_root` is the post-state root of its slot, so it equals `state.state_roots[s % 8192]`;
//! - the state's `latest_block_header` is the era's last block with `state_root` filled in, so its root is
//!   that block's root;
//! - the epoch transition into slot `era * 8192` appended `hash_tree_root(HistoricalBatch(block_roots,
//!   state_roots))` to `historical_roots` (before capella) or the equal-rooted `HistoricalSummary` to
//!   `historical_summaries` (capella on): the last entry is computable from the state's own vectors, there is
//!   one entry per completed era, and the file name's hash8 is that entry's first 4 bytes (era 0: the
//!   `genesis_validators_root`);
//! - a payload's `timestamp` is `genesis_time + slot * SECONDS_PER_SLOT` (the network's config value: 12 on
//!   mainnet, 5 on gnosis); its `block_hash` is the keccak of the execution
//!   header rebuilt from it ([`super::payload`]); the blob transactions' versioned hashes are the body's KZG
//!   commitments, in order, as `0x01 || sha256(commitment)[1..]`.
//!
//! Not checked: BLS signatures (no BLS dependency; the block roots chain through the state instead) and the
//! state transition itself.

use super::bid::ParentLink;
use super::era_state::{check_history, sequential_checks, SlotFacts, StateFacts};
use super::report::{BeaconReport, FileReport};
pub use super::verified::{VerifiedBeaconBlock, VerifiedPayload, VerifiedState};
use super::{hex0x, mismatch, process_signer, VerifyOptions, Visitor};
use crate::consensus::merkle::Forest;
use crate::consensus::registry::Registry;
use crate::consensus::ssz::SszError;
use crate::consensus::{
    BeaconBlockBody, BeaconState, ExecutionPayload, Fork, Kind, SignedBeaconBlock, Spec, Withdrawal,
};
use crate::crypto::keccak::keccak256;
use crate::crypto::signer::{SenderError, Signer};
use crate::execution::transaction::TxView;
use crate::formats::e2store::{E2StoreReader, RecordType};
use crate::formats::era::EraFile;
use crate::formats::snappy::FramedDecoder;
use crate::formats::MappedArchive;
use crate::formats::{ArchiveKind, ArchiveName};
use crate::formats::{FormatError, FormatErrorKind};
use crate::network::Network;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Default)]
struct Counts {
    transactions: u64,
    withdrawals: u64,
    senders_recovered: u64,
    sender_errors: u64,
    tx_kinds: BTreeMap<&'static str, u64>,
    forks: BTreeMap<&'static str, u64>,
}

impl Counts {
    fn merge(mut self, o: Counts) -> Counts {
        self.transactions += o.transactions;
        self.withdrawals += o.withdrawals;
        self.senders_recovered += o.senders_recovered;
        self.sender_errors += o.sender_errors;
        for (k, v) in o.tx_kinds {
            *self.tx_kinds.entry(k).or_default() += v;
        }
        for (k, v) in o.forks {
            *self.forks.entry(k).or_default() += v;
        }
        self
    }
}

/// Verifies an opened era file into `report`, running `visitor` over its state and every block that passes
/// (see [`super::archive`]).
pub(super) fn verify_era<V: Visitor>(
    file: &EraFile,
    opts: &VerifyOptions,
    visitor: &V,
    emit: &mut (impl FnMut(V::Chunk) + Send),
    report: &mut FileReport,
) {
    let path = file.path();
    let Some((network, parsed_name)) = network_and_name(file, opts, report) else {
        return;
    };
    if opts.checksum {
        report.sha256 = Some(hex::encode(crate::crypto::sha256::sha256(file.bytes())));
    }
    walk_records(file, report);

    // The state.
    let state_rec = match file.state_record() {
        Ok(r) => r,
        Err(e) => {
            report.error(e);
            return;
        }
    };
    let mut dec = crate::formats::era::state_decoder();
    let state_bytes = match dec.decompress(state_rec.data) {
        Ok(b) => b,
        Err(k) => {
            report.error(FormatError::at(state_rec.offset, k).in_file(path));
            return;
        }
    };
    let state_slot = file.state_slot();
    let mut beacon = BeaconReport {
        state_slot,
        ..Default::default()
    };
    let Some((state, own_root)) = open_state(
        file,
        &network,
        state_bytes,
        state_rec.offset,
        &mut beacon,
        report,
    ) else {
        report.beacon = Some(beacon);
        return;
    };
    check_history(
        file,
        &state,
        state_rec.offset,
        parsed_name.as_ref().ok(),
        &mut beacon,
        report,
    );
    if let (Some(root), true) = (own_root, visitor.wants_state()) {
        match Registry::new(&state) {
            Ok(registry) => visitor.state(
                &VerifiedState {
                    slot: state_slot,
                    era: file.era(),
                    root,
                    state: &state,
                    registry: &registry,
                },
                emit,
            ),
            Err(e) => report.error(state_error(path, state_rec.offset, e)),
        }
    }
    let sf = StateFacts::of(&state, network.gloas_slot());
    // The blocks need only those facts: free the decompressed state now, so an export's peak memory is the
    // state's or the blocks' datasets', not both.
    drop(state);
    drop(dec);

    let signer = match process_signer(opts, Some(&network), path, report) {
        Ok(s) => s,
        Err(()) => return,
    };

    // Blocks, in parallel chunks of slots.
    let (slot_facts, counts) = match file.block_index() {
        Some(index) => {
            let ctx = BlockContext {
                file,
                network: &network,
                state: &sf,
                signer,
            };
            let (slot_facts, counts) = block_pass(&ctx, index, visitor, emit, report);
            sequential_checks(file, &sf, &slot_facts, &mut beacon, report);
            (slot_facts, counts)
        }
        None => Default::default(),
    };
    counts_into_report(counts, &slot_facts, opts, path, &mut beacon, report);
    beacon.links.state_root = own_root;
    report.beacon = Some(beacon);
}

/// The network (given, else the one the file's canonical name names) and the name, checked against the file's
/// era and the network given. `None` (the report says why) when the network cannot be known or contradicts
/// the name.
#[allow(clippy::type_complexity)]
fn network_and_name(
    file: &EraFile,
    opts: &VerifyOptions,
    report: &mut FileReport,
) -> Option<(Network, Result<ArchiveName, FormatErrorKind>)> {
    let path = file.path();
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let parsed_name = ArchiveName::parse_as(ArchiveKind::Era, name);
    let network = match (&opts.network, &parsed_name) {
        (Some(n), _) => n.clone(),
        (None, Ok(n)) => match Network::by_name(&n.network) {
            Ok(net) => net,
            Err(e) => {
                report.error(format!(
                    "{}: forks cannot be known, so blocks cannot be decoded: {e}",
                    path.display()
                ));
                return None;
            }
        },
        (None, Err(e)) => {
            report.error(FormatError::at(0, e.clone()).in_file(path));
            report.error(format!(
                "{}: without a canonical name, pass --network so forks can be known",
                path.display()
            ));
            return None;
        }
    };
    report.network = network.name.clone();
    report.era = Some(file.era());
    if let Ok(n) = &parsed_name {
        if n.era != file.era() {
            report.error(mismatch(0, "era in file name", file.era(), n.era).in_file(path));
        }
        if let Err(e) = super::check_network_matches_name(opts.network.as_ref(), Some(n), path) {
            report.error(e);
            return None;
        }
    } else if let Err(e) = &parsed_name {
        report.error(FormatError::at(0, e.clone()).in_file(path));
    }
    Some((network, parsed_name))
}

/// A state error at `offset` of the file at `path`.
fn state_error(path: &Path, offset: u64, e: SszError) -> FormatError {
    FormatError::at(offset, FormatErrorKind::Index(format!("BeaconState: {e}"))).in_file(path)
}

/// The era's state, from `state_bytes` (the record at `offset`): its slot, fork, root, validator count and
/// genesis validators root checked into `beacon` and `report`. `None` when it cannot be read (a state of a
/// fork eraflow does not read, or one that does not decode); its root is `None` when it cannot be computed.
fn open_state<'s>(
    file: &EraFile,
    network: &Network,
    state_bytes: &'s [u8],
    offset: u64,
    beacon: &mut BeaconReport,
    report: &mut FileReport,
) -> Option<(BeaconState<'s>, Option<[u8; 32]>)> {
    let path = file.path();
    let state_slot = file.state_slot();
    match crate::consensus::slot_of(state_bytes, Kind::State) {
        Ok(s) if s == state_slot => {}
        Ok(s) => report.error(
            mismatch(
                offset,
                "state slot",
                format!("{state_slot} (slot index)"),
                s,
            )
            .in_file(path),
        ),
        Err(e) => report.error(state_error(path, offset, e)),
    }
    let state_spec = Spec::at_slot(state_slot, network);
    let state_fork = state_spec.fork;
    beacon.state_fork = state_fork.name().into();
    let state = match BeaconState::new(state_bytes, state_spec) {
        Ok(s) => s,
        Err(e) => {
            report.error(state_error(path, offset, e));
            return None;
        }
    };
    let own_root = match state.root() {
        Ok(r) => {
            beacon.state_root = hex0x(&r);
            Some(r)
        }
        Err(e) => {
            report.error(state_error(path, offset, e));
            None
        }
    };
    beacon.validators = state.validator_count().unwrap_or(0) as u64;
    let gvr = state.genesis_validators_root();
    let want_gvr = network
        .consensus
        .genesis_validators_root
        .trim_start_matches("0x");
    if hex::encode(gvr) != want_gvr.to_ascii_lowercase() {
        report.error(
            mismatch(
                offset,
                "genesis_validators_root (is this the network's state?)",
                format!("0x{want_gvr} ({})", network.name),
                hex0x(&gvr),
            )
            .in_file(path),
        );
    }
    Some((state, own_root))
}

/// The parallel pass over the slots of `index`, in chunks of similar bytes: each block's facts for the
/// sequential checks, and the counts of them all. Errors go to `report`, each chunk's output to `emit`.
fn block_pass<V: Visitor>(
    ctx: &BlockContext<'_>,
    index: &crate::formats::era::SlotIndex,
    visitor: &V,
    emit: &mut (impl FnMut(V::Chunk) + Send),
    report: &mut FileReport,
) -> (Vec<SlotFacts>, Counts) {
    let file = ctx.file;
    let mut slot_facts: Vec<SlotFacts> = Vec::new();
    let mut counts = Counts::default();
    let n = index.offsets.len() as u64;
    // A slot's bytes: its block record's (none for an empty slot; a record that does not read is
    // reported by verification and counts nothing here).
    let chunks = super::chunk_ranges(n, |i| {
        file.block_record(index.start_slot + i)
            .ok()
            .flatten()
            .map_or(0, |r| r.data.len() as u64)
    });
    // Each window's outputs are emitted while the next one is verified.
    let window = (rayon::current_num_threads() * 2).max(2);
    let work = |group: &[(u64, u64)]| -> Vec<_> {
        group
            .par_iter()
            .map_init(
                || (crate::formats::era::block_decoder(), Forest::new()),
                |(dec, forest), &(s, e)| {
                    let mut out = visitor.start_chunk(index.start_slot + s);
                    let mut found = Vec::new();
                    let mut counts = Counts::default();
                    let mut errors = Vec::new();
                    // Gloas bids chain through the previous block: the chunk's first looks back once.
                    let mut parent = link_before(ctx, index, s, dec);
                    for i in s..e {
                        let Some(Some(_)) = index.offsets.get(i as usize) else {
                            continue;
                        };
                        match check_block(
                            ctx,
                            index.start_slot + i,
                            parent.as_ref(),
                            dec,
                            forest,
                            &mut counts,
                            visitor,
                            &mut out,
                        ) {
                            Ok((f, link)) => {
                                found.push(f);
                                parent = link;
                            }
                            Err(err) => {
                                errors.push(err);
                                parent = None;
                            }
                        }
                    }
                    (found, counts, errors, out)
                },
            )
            .collect()
    };
    super::pipelined_windows(&chunks, window, work, |results| {
        for (f, c, errs, out) in results {
            slot_facts.extend(f);
            counts = std::mem::take(&mut counts).merge(c);
            for e in errs {
                report.error(e);
            }
            emit(out);
        }
    });
    (slot_facts, counts)
}

/// The counts of the block pass into the report.
fn counts_into_report(
    counts: Counts,
    slot_facts: &[SlotFacts],
    opts: &VerifyOptions,
    path: &Path,
    beacon: &mut BeaconReport,
    report: &mut FileReport,
) {
    beacon.blocks_per_fork = counts
        .forks
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    beacon.withdrawals = counts.withdrawals;
    report.blocks = slot_facts.len() as u64;
    report.transactions = counts.transactions;
    report.tx_kinds = counts
        .tx_kinds
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    if opts.senders {
        report.senders_recovered = Some(counts.senders_recovered);
        report.sender_errors = Some(counts.sender_errors);
        if counts.sender_errors > 0 {
            report.error(format!(
                "{}: {} transactions whose sender does not recover",
                path.display(),
                counts.sender_errors
            ));
        }
    }
    let payloads: Vec<_> = slot_facts.iter().filter_map(|f| f.payload).collect();
    report.first_block = payloads.first().map(|p| p.0);
    report.last_block = payloads.last().map(|p| p.0);
    report.first_block_hash = payloads.first().map(|p| hex0x(&p.1));
    report.last_block_hash = payloads.last().map(|p| hex0x(&p.1));
}

/// Everything a block is checked against.
struct BlockContext<'a> {
    file: &'a EraFile,
    network: &'a Network,
    state: &'a StateFacts,
    signer: Option<&'a Signer>,
}

/// The link the block before item `i` of `index` leaves for its child, when item `i`'s slot is in Gloas (whose
/// bids chain through it) and that block is in this file and reads; else `None`.
fn link_before(
    ctx: &BlockContext<'_>,
    index: &crate::formats::era::SlotIndex,
    i: u64,
    dec: &mut FramedDecoder,
) -> Option<ParentLink> {
    let gloas = ctx.network.gloas_slot()?;
    let last_slot = index.start_slot + index.offsets.len() as u64;
    if last_slot <= gloas {
        return None;
    }
    let j = (0..i as usize)
        .rev()
        .find(|&j| matches!(index.offsets.get(j), Some(Some(_))))?;
    let slot = index.start_slot + j as u64;
    let rec = ctx.file.block_record(slot).ok()??;
    let bytes = dec.decompress(rec.data).ok()?;
    let spec = Spec::at_slot(slot, ctx.network);
    let block = SignedBeaconBlock::new(bytes, spec).ok()?.message().ok()?;
    let body = block.body().ok()?;
    block_link(slot, &body)
}

/// The link a block leaves for its child's bid: its own bid (Gloas), or its payload's hash (a payload is
/// always revealed); `None` before the merge.
fn block_link(slot: u64, body: &BeaconBlockBody<'_>) -> Option<ParentLink> {
    if let Some(bid) = body.bid() {
        return Some(ParentLink::of_bid(slot, &bid.ok()?));
    }
    let payload = body.execution_payload()?.ok()?;
    let hash: [u8; 32] = payload.block_hash().try_into().ok()?;
    (hash != [0u8; 32]).then(|| ParentLink::of_payload(slot, hash))
}

/// Decodes and checks one block against the state and itself (and its bid against `parent`'s); returns its
/// facts and the link it leaves for its child.
#[allow(clippy::too_many_arguments)]
fn check_block<V: Visitor>(
    ctx: &BlockContext<'_>,
    slot: u64,
    parent: Option<&ParentLink>,
    dec: &mut FramedDecoder,
    forest: &mut Forest,
    counts: &mut Counts,
    visitor: &V,
    out: &mut V::Chunk,
) -> Result<(SlotFacts, Option<ParentLink>), FormatError> {
    let path = ctx.file.path();
    let rec = ctx
        .file
        .block_record(slot)?
        .ok_or_else(|| FormatError::at(0, FormatErrorKind::Index("empty slot".into())))?;
    let at = rec.offset;
    let located = |e: FormatError| e.in_file(path).in_slot(slot);
    let ssz_err = |e: SszError| located(block_ssz_error(at, e));
    let bytes = dec
        .decompress(rec.data)
        .map_err(|k| located(FormatError::at(at, k)))?;
    let spec = Spec::at_slot(slot, ctx.network);
    let fork = spec.fork;
    *counts.forks.entry(fork.name()).or_default() += 1;
    let signed = SignedBeaconBlock::new(bytes, spec).map_err(ssz_err)?;
    let block = signed.message().map_err(ssz_err)?;
    if block.slot() != slot {
        return Err(located(mismatch(
            at,
            "block slot",
            format!("{slot} (slot index)"),
            block.slot(),
        )));
    }
    // The block's objects as one batch of hashes (their padding chains side by side in the SHA lanes).
    forest.clear();
    let roots = block.defer_roots(forest).map_err(ssz_err)?;
    forest.evaluate();
    let root = match forest.get(roots.block) {
        Some(r) => r,
        None => block.root().map_err(ssz_err)?,
    };
    // Checked after the payload's own block hash, so a damaged payload is reported as such rather than as
    // the root mismatch it also causes.
    let check_state =
        || against_state(ctx.state, slot, at, &root, &block.state_root()).map_err(located);
    let body = block.body().map_err(ssz_err)?;
    let mut facts = SlotFacts {
        slot,
        record_offset: at,
        root,
        parent_root: block.parent_root(),
        payload: None,
        payload_root: None,
        proposer: block.proposer_index(),
        state_root: block.state_root(),
        body_root: match roots.body.and_then(|v| forest.get(v)) {
            Some(r) => r,
            None => body.root().map_err(ssz_err)?,
        },
        bid: None,
    };
    let payload = match body.execution_payload() {
        Some(p) => Some(p.map_err(ssz_err)?),
        None => None,
    };
    // Bellatrix blocks before the merge carry the default (all-zero) payload.
    // What the visitor is handed, with the payload's parts added below when the block has one.
    let verified = VerifiedBeaconBlock {
        slot,
        root,
        block: &block,
        body: &body,
        execution: None,
        parent_payload_revealed: None,
        signature: signed.signature(),
        sizes: (rec.data.len() as u64, bytes.len() as u64),
    };
    if let Some(bid) = body.bid() {
        let bid = bid.map_err(ssz_err)?;
        let b = super::bid::check_block(&block, &body, &bid, parent, ctx.state.builders, at)
            .map_err(located)?;
        check_state()?;
        facts.bid = Some(b);
        visitor.beacon_block(
            out,
            &VerifiedBeaconBlock {
                parent_payload_revealed: b.parent_revealed,
                ..verified
            },
        );
        return Ok((facts, Some(ParentLink::of_bid(slot, &bid))));
    }
    let Some(payload) = payload.filter(|p| p.block_hash().iter().any(|&b| b != 0)) else {
        check_state()?;
        visitor.beacon_block(out, &verified);
        return Ok((facts, None));
    };
    let header = super::payload::header_from_payload(&block).map_err(|e| {
        located(FormatError::at(
            at,
            FormatErrorKind::Index(format!("execution payload: {e}")),
        ))
    })?;
    let hash = keccak256(header.encode());
    if hash.0 != payload.block_hash() {
        return Err(located(mismatch(
            at,
            "execution block hash (keccak of the header rebuilt from the payload)",
            hex0x(payload.block_hash()),
            hex0x(&hash.0),
        )));
    }
    check_state()?;
    check_timestamp(ctx, slot, at, payload.timestamp()).map_err(located)?;
    let txs = payload_transactions(&payload, at).map_err(located)?;
    // Blob commitments against the blob transactions' versioned hashes (deneb `process_execution_payload`).
    if fork >= Fork::Deneb {
        check_blob_hashes(&body, &txs, at).map_err(located)?;
    }
    let withdrawals = payload.withdrawals().map_err(ssz_err)?;
    check_withdrawal_validators(&withdrawals, ctx.state.validators, at).map_err(located)?;
    let senders = count_payload(&txs, &withdrawals, ctx.signer, counts);
    facts.payload = Some((
        payload.block_number(),
        hash.0,
        payload.parent_hash().try_into().unwrap_or_default(),
    ));
    let payload_root = match roots.payload.and_then(|v| forest.get(v)) {
        Some(r) => r,
        None => payload.root().map_err(ssz_err)?,
    };
    facts.payload_root = Some((payload_root, spec));
    visitor.beacon_block(
        out,
        &VerifiedBeaconBlock {
            execution: Some(VerifiedPayload {
                payload: &payload,
                header: &header,
                block_hash: hash,
                transactions: &txs,
                senders: &senders,
                withdrawals: &withdrawals,
            }),
            ..verified
        },
    );
    Ok((facts, Some(ParentLink::of_payload(slot, hash.0))))
}

/// An SSZ error in the block record at `at`.
fn block_ssz_error(at: u64, e: SszError) -> FormatError {
    FormatError::at(
        at,
        FormatErrorKind::Index(format!("SignedBeaconBlock: {e}")),
    )
}

/// The block's root and state root against the state's `block_roots` and `state_roots` of its slot.
fn against_state(
    state: &StateFacts,
    slot: u64,
    at: u64,
    root: &[u8; 32],
    state_root: &[u8; 32],
) -> Result<(), FormatError> {
    let want = state.block_root(slot);
    if *root != want {
        return Err(mismatch(
            at,
            "block root (state.block_roots)",
            hex0x(&want),
            hex0x(root),
        ));
    }
    let want = state.state_root(slot);
    if *state_root != want {
        return Err(mismatch(
            at,
            "block state_root (state.state_roots)",
            hex0x(&want),
            hex0x(state_root),
        ));
    }
    Ok(())
}

/// The payload's timestamp against its slot's (`genesis_time + slot * SECONDS_PER_SLOT`).
fn check_timestamp(
    ctx: &BlockContext<'_>,
    slot: u64,
    at: u64,
    timestamp: u64,
) -> Result<(), FormatError> {
    let seconds = ctx.network.seconds_per_slot();
    let want_time = ctx.state.genesis_time + slot * seconds;
    if timestamp != want_time {
        return Err(mismatch(
            at,
            "payload timestamp (genesis_time + slot * SECONDS_PER_SLOT)",
            format!(
                "{want_time} ({} + {slot} * {seconds})",
                ctx.state.genesis_time
            ),
            timestamp,
        ));
    }
    Ok(())
}

/// The payload's transactions, each decoded.
fn payload_transactions<'p>(
    payload: &ExecutionPayload<'p>,
    at: u64,
) -> Result<Vec<TxView<'p>>, FormatError> {
    payload
        .transactions()
        .map_err(|e| block_ssz_error(at, e))?
        .enumerate()
        .map(|(i, t)| {
            TxView::decode_canonical(t).map_err(|e| {
                mismatch(
                    at,
                    "transaction",
                    format!("a valid transaction at index {i}"),
                    e,
                )
            })
        })
        .collect()
}

/// The blob transactions' versioned hashes against the body's KZG commitments, in order.
fn check_blob_hashes(
    body: &BeaconBlockBody<'_>,
    txs: &[TxView<'_>],
    at: u64,
) -> Result<(), FormatError> {
    let commitments = body
        .blob_kzg_commitment_list()
        .map_err(|e| block_ssz_error(at, e))?;
    let hashes: Vec<[u8; 32]> = txs
        .iter()
        .flat_map(|t| t.blob_versioned_hashes().copied())
        .collect();
    let expected: Vec<[u8; 32]> = commitments
        .iter()
        .map(|c| super::payload::versioned_hash(c))
        .collect();
    if hashes != expected {
        return Err(mismatch(
            at,
            "blob versioned hashes (from blob_kzg_commitments)",
            format!("{} hashes", expected.len()),
            format!(
                "{} hashes in blob transactions, or different ones",
                hashes.len()
            ),
        ));
    }
    Ok(())
}

/// Every withdrawal credits a validator the state knows (capella `process_withdrawals` takes them from the
/// registry of `validators`): an index beyond it is a payload no beacon node would have accepted.
fn check_withdrawal_validators(
    withdrawals: &[Withdrawal],
    validators: u64,
    at: u64,
) -> Result<(), FormatError> {
    match withdrawals.iter().find(|w| w.validator_index >= validators) {
        Some(w) => Err(mismatch(
            at,
            "withdrawal validator_index (in the state's validator registry)",
            format!("below {validators} (the state's validators)"),
            format!("{} (withdrawal index {})", w.validator_index, w.index),
        )),
        None => Ok(()),
    }
}

/// Counts a payload's transactions (by kind) and withdrawals, and recovers its senders with `signer` when
/// given.
fn count_payload(
    txs: &[TxView<'_>],
    withdrawals: &[Withdrawal],
    signer: Option<&Signer>,
    counts: &mut Counts,
) -> Vec<Result<[u8; 20], SenderError>> {
    counts.transactions += txs.len() as u64;
    counts.withdrawals += withdrawals.len() as u64;
    for t in txs {
        *counts
            .tx_kinds
            .entry(super::execution::kind_label(t.kind()))
            .or_default() += 1;
    }
    let mut senders = Vec::new();
    if let Some(s) = signer {
        senders.reserve(txs.len());
        for t in txs {
            let r = s.recover_sender(t, true);
            if r.is_ok() {
                counts.senders_recovered += 1;
            } else {
                counts.sender_errors += 1;
            }
            senders.push(r);
        }
    }
    senders
}

/// Walks every record: counts types, and checks that the block records are exactly those the index names.
fn walk_records(file: &EraFile, report: &mut FileReport) {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let indexed: std::collections::BTreeSet<u64> = file
        .block_index()
        .map(|i| i.offsets.iter().flatten().copied().collect())
        .unwrap_or_default();
    let mut blocks_seen = 0u64;
    for rec in E2StoreReader::new(file.bytes()) {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                report.error(e.in_file(file.path()));
                break;
            }
        };
        *counts.entry(rec.kind.name()).or_default() += 1;
        if rec.kind == RecordType::COMPRESSED_SIGNED_BEACON_BLOCK {
            blocks_seen += 1;
            if !indexed.contains(&rec.offset) {
                report.error(
                    FormatError::at(
                        rec.offset,
                        FormatErrorKind::Index(
                            "a block record no slot index entry points to".into(),
                        ),
                    )
                    .in_file(file.path()),
                );
            }
        }
    }
    if blocks_seen != indexed.len() as u64 {
        report.error(
            mismatch(
                file.block_index().map_or(0, |i| i.record_offset),
                "block records",
                format!("{} (non-empty slot index entries)", indexed.len()),
                blocks_seen,
            )
            .in_file(file.path()),
        );
    }
    report.record_counts = counts;
}
