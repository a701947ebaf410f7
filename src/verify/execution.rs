//! Full verification of execution archives — era1 and ere files alike: every block's hash chain, transactions,
//! ommers and withdrawals roots, receipts (full, or rebuilt from slim ones) with their blooms and gas, fork rules,
//! total difficulty, the index and the accumulator, with blocks checked in parallel chunks and files in parallel.
//! The record layout (`verify/layout.rs`) and the per-kind rules at the end (`verify/sequence.rs`) are all that
//! differ between the two kinds.

use super::receipts::check_receipts;
use super::report::FileReport;
use super::sequence::sequential_checks;
pub use super::tally::kind_label;
use super::tally::{kind_slot, rlp_error, BlockFacts, Counts, KIND_LABELS};
use super::{hex0x, mismatch};
use crate::crypto::keccak::keccak256;
use crate::crypto::signer::{SenderError, Signer};
use crate::execution::body::BodyView;
use crate::execution::header::{HeaderView, Seal};
use crate::execution::receipt::ReceiptView;
use crate::execution::rlp;
use crate::execution::transaction::{canonical_and_kind, TxKind, TxView};
use crate::execution::trie;
use crate::execution::withdrawal::Withdrawal;
use crate::formats::execution::{decompress, BlockDecoders, BLOCKS_PER_ERA};
use crate::formats::ArchiveName;
use crate::formats::{ExecutionArchive, FormatError, FormatErrorKind};
use crate::network::{Network, PreMergeSeal};
use alloy_primitives::U256;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

pub use super::verified::{BlockHashes, BlockLog, BlockLogs, TxHashes, VerifiedBlock};
pub use super::VerifyOptions;
use super::Visitor;

/// What one parallel chunk of blocks produced: per-block facts, counts, errors, and the visitor's output.
type ChunkResult<C> = (Vec<BlockFacts>, Counts, Vec<FormatError>, C);

/// Per-thread state of the block pass: the record decoders, and the buffer slim receipts are rebuilt into.
#[derive(Default)]
struct Worker {
    dec: BlockDecoders,
    rebuilt: Vec<u8>,
}

/// Verifies an opened era1 or ere file into `report`, running `visitor` over every block that passes (see
/// [`super::archive`]): the name and network, the file's own facts and record walk, the parallel block pass,
/// then the checks across blocks and the file's place in canonical history.
pub(super) fn verify_execution<V: Visitor>(
    file: &ExecutionArchive,
    opts: &VerifyOptions,
    visitor: &V,
    emit: &mut (impl FnMut(V::Chunk) + Send),
    report: &mut FileReport,
) {
    let path = file.path();
    let Some((network, parsed_name)) = name_and_network(file, opts, report) else {
        return;
    };
    file_facts(file, opts, report);
    super::layout::walk_records(file, report);

    // The signer is looked up once per file, never per transaction, and only when senders are asked for.
    let signer: Option<&Signer> = match super::process_signer(opts, network.as_ref(), path, report)
    {
        Ok(s) => s,
        Err(()) => return,
    };
    let pass = Pass {
        file,
        network: network.as_ref(),
        signer,
        opts,
    };
    let (facts, mut counts) = block_pass(&pass, visitor, emit, report);
    let proofs = super::canonical::ProofCounts {
        proven: std::mem::take(&mut counts.proven),
        unanchored: counts.unanchored,
        unanchored_reason: counts.unanchored_reason.take(),
    };
    counts_into_report(counts, opts, path, report);
    sequential_checks(
        file,
        &facts,
        network.as_ref(),
        parsed_name.as_ref().ok(),
        report,
    );
    super::canonical::file_canonical(file, network.as_ref(), opts, proofs, report);
    if let Err(e) = parsed_name {
        report.error(FormatError::at(0, e).in_file(path));
    }
}

/// The file's name and network: the network given, else the one its canonical name names. `None` (the report
/// says why) when a given network contradicts the name.
#[allow(clippy::type_complexity)]
fn name_and_network(
    file: &ExecutionArchive,
    opts: &VerifyOptions,
    report: &mut FileReport,
) -> Option<(Option<Network>, Result<ArchiveName, FormatErrorKind>)> {
    let path = file.path();
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let parsed_name = ArchiveName::parse_as(file.kind(), name);
    let network = match (&opts.network, &parsed_name) {
        (Some(n), _) => Some(n.clone()),
        // A canonical name that names no known network is an error, not a warning: the fork rules and the
        // genesis hash could not be checked, so "verified" would claim more than was done. The other checks
        // still run, and --network (or a preset file) says which rules apply.
        (None, Ok(n)) => match Network::by_name(&n.network) {
            Ok(net) => Some(net),
            Err(e) => {
                report.error(format!(
                    "{}: the file name's network is not known, so fork rules and the genesis hash cannot be checked: {e}; pass --network",
                    path.display()
                ));
                None
            }
        },
        (None, Err(_)) => None,
    };
    report.network = network
        .as_ref()
        .map(|n| n.name.clone())
        .or_else(|| parsed_name.as_ref().ok().map(|n| n.network.clone()))
        .unwrap_or_default();
    if let Err(e) =
        super::check_network_matches_name(opts.network.as_ref(), parsed_name.as_ref().ok(), path)
    {
        report.error(e);
        return None;
    }
    Some((network, parsed_name))
}

/// What the file says of itself: its block range, era, checksum and (ere) profile and components.
fn file_facts(file: &ExecutionArchive, opts: &VerifyOptions, report: &mut FileReport) {
    report.first_block = Some(file.first_block());
    report.last_block = Some(file.last_block());
    report.blocks = file.block_count();
    report.era = Some(file.first_block() / BLOCKS_PER_ERA);
    if opts.checksum {
        report.sha256 = Some(hex::encode(crate::crypto::sha256::sha256(file.bytes())));
    }
    if let ExecutionArchive::Ere(f) = file {
        report.ere = Some(super::report::EreReport {
            profile: f.profile().name().to_string(),
            components: f
                .index()
                .order()
                .iter()
                .map(|c| c.name().to_string())
                .collect(),
            proof_types: BTreeMap::new(),
            pre_merge_blocks: 0,
            slots: None,
        });
        if f.profile().no_receipts {
            report.warnings.push(
                "no receipts in the file (noreceipts profile): receipts root, logs bloom and gas used not checked"
                    .into(),
            );
        }
    }
}

/// What every block of a file's pass shares.
struct Pass<'a> {
    file: &'a ExecutionArchive,
    network: Option<&'a Network>,
    signer: Option<&'a Signer>,
    opts: &'a VerifyOptions,
}

/// The parallel pass over blocks, cut into chunks by block count and bytes: each block's facts for the
/// sequential checks, and the counts of them all. Errors go to `report`, each chunk's output to `emit`.
fn block_pass<V: Visitor>(
    pass: &Pass<'_>,
    visitor: &V,
    emit: &mut (impl FnMut(V::Chunk) + Send),
    report: &mut FileReport,
) -> (Vec<BlockFacts>, Counts) {
    let Pass {
        file,
        network,
        signer,
        opts,
    } = *pass;
    // Visitors that need only hashes get the light transaction path when nothing else needs the fields.
    let light = opts.skip_receipts && signer.is_none() && !visitor.needs_decoded_transactions();

    // Parallel pass over blocks, cut into chunks by block count and bytes.
    let n = file.block_count();
    let chunks = super::chunk_ranges(n, |i| file.block_size(i));
    let mut facts = Vec::with_capacity(n as usize);
    let mut counts = Counts::default();
    // A window of chunks in flight: enough to keep every thread busy, bounded so outputs stream out; each
    // window's outputs are emitted while the next one is verified.
    let window = (rayon::current_num_threads() * 2).max(2);
    let work = |group: &[(u64, u64)]| -> Vec<ChunkResult<V::Chunk>> {
        group
            .par_iter()
            .map_init(Worker::default, |worker, &(s, e)| {
                let mut out = visitor.start_chunk(file.first_block() + s);
                let mut facts = Vec::with_capacity((e - s) as usize);
                let mut counts = Counts::default();
                let mut errors = Vec::new();
                for i in s..e {
                    match check_block(
                        file,
                        i,
                        worker,
                        network,
                        signer,
                        opts,
                        &mut counts,
                        visitor,
                        &mut out,
                        light,
                    ) {
                        Ok(f) => facts.push(f),
                        Err(err) => {
                            facts.push(BlockFacts::default());
                            errors.push(err);
                        }
                    }
                }
                (facts, counts, errors, out)
            })
            .collect()
    };
    super::pipelined_windows(&chunks, window, work, |results| {
        for (f, c, errs, out) in results {
            facts.extend(f);
            counts = std::mem::take(&mut counts).merge(c);
            for e in errs {
                report.error(e);
            }
            emit(out);
        }
    });
    (facts, counts)
}

/// The counts of the block pass into the report.
fn counts_into_report(counts: Counts, opts: &VerifyOptions, path: &Path, report: &mut FileReport) {
    report.transactions = counts.transactions;
    report.ommers = counts.ommers;
    report.receipts = counts.receipts;
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
    report.logs = counts.logs;
    report.withdrawals = counts.withdrawals;
    if let Some(ere) = &mut report.ere {
        ere.proof_types = counts
            .proof_types
            .iter()
            .map(|(t, n)| (t.to_string(), *n))
            .collect();
    }
    report.tx_kinds = KIND_LABELS
        .iter()
        .zip(counts.tx_kinds)
        .filter(|(_, v)| *v > 0)
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let mut forms = BTreeMap::new();
    for (slot, counts) in counts.receipt_forms.iter().enumerate() {
        // Both legacy kinds make `legacy` receipts: the receipt cannot tell them apart.
        let label = if slot < 2 {
            "legacy"
        } else {
            KIND_LABELS[slot]
        };
        for (form, n) in ["status", "post_state"].iter().zip(counts) {
            if *n > 0 {
                *forms.entry(format!("{label}/{form}")).or_default() += n;
            }
        }
    }
    report.receipt_forms = forms;
    report.header_field_counts = counts
        .header_fields
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
}

/// `GAS_PER_BLOB` ([EIP-4844](https://eips.ethereum.org/EIPS/eip-4844)): a header's `blob_gas_used` is this
/// times the blobs of its type-3 transactions.
const GAS_PER_BLOB: u64 = 1 << 17;

/// keccak256 of the empty list `0xc0`: the ommers hash of every post-merge block.
const EMPTY_OMMERS_HASH: [u8; 32] =
    alloy_primitives::hex!("1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347");

/// Decodes and checks one block against itself: header fields for its fork, transactions, ommers and
/// withdrawals roots, blob gas, receipts with blooms and gas, and its header proof; then hands it to `visitor`.
#[allow(clippy::too_many_arguments)]
fn check_block<V: Visitor>(
    file: &ExecutionArchive,
    i: u64,
    worker: &mut Worker,
    network: Option<&Network>,
    signer: Option<&Signer>,
    opts: &VerifyOptions,
    counts: &mut Counts,
    visitor: &V,
    out: &mut V::Chunk,
    light: bool,
) -> Result<BlockFacts, FormatError> {
    let t = file.block(i)?;
    let path = file.path();
    let number = t.number;
    let at = At { path, number };
    let Worker { dec, rebuilt } = worker;

    let header_raw = decompress(&mut dec.header, &t.header, path, number)?;
    let header = HeaderView::decode(header_raw).map_err(at.rlp(t.header.offset))?;
    *counts
        .header_fields
        .entry(header.field_count())
        .or_default() += 1;
    if header.number() != number {
        return Err(at.located(mismatch(
            t.header.offset,
            "header number",
            number,
            header.number(),
        )));
    }
    let timestamp = header.timestamp();
    check_header_fork(&header, network, t.header.offset).map_err(|e| at.located(e))?;
    // Body: transactions root, ommers hash, withdrawals root.
    let body_raw = decompress(&mut dec.body, &t.body, path, number)?;
    let body = BodyView::decode(body_raw).map_err(at.rlp(t.body.offset))?;
    let txs_at = TxsAt {
        at,
        offset: t.body.offset,
        max_tx_type: network.map_or(u8::MAX, |n| n.max_tx_type(number, timestamp)),
    };
    let mut txs = BlockTxs::default();
    // Light path: [header, ommers list, transactions...] hashes from one batch with the trie leaves.
    let mut light_hashes: Vec<[u8; 32]> = Vec::new();
    let (hash, tx_root, ommers_hash) = if light {
        txs.read_light(&body, &txs_at)?;
        let root = trie::ordered_root_and_hashes(
            &txs.encodings,
            &[header.raw(), body.ommers_rlp()],
            &mut light_hashes,
        );
        let at = |i: usize| light_hashes.get(i).copied().unwrap_or_default();
        (at(0), root, at(1))
    } else {
        let homestead = network.is_none_or(|n| n.is_homestead(number));
        txs.read_full(&body, &txs_at, signer.map(|s| (s, homestead)), counts)?;
        (
            header.hash().0,
            trie::ordered_root(&txs.encodings),
            keccak256(body.ommers_rlp()).0,
        )
    };
    check_roots(&header, &tx_root.0, &ommers_hash, t.body.offset).map_err(|e| at.located(e))?;
    let mut ommer_count = 0u64;
    for o in body.ommers() {
        let o = o.map_err(at.rlp(t.body.offset))?;
        HeaderView::decode(o.raw).map_err(at.rlp(t.body.offset))?;
        ommer_count += 1;
    }
    let withdrawals =
        check_withdrawals(&header, &body, t.body.offset).map_err(|e| at.located(e))?;
    check_blob_gas(&header, txs.blobs, t.header.offset).map_err(|e| at.located(e))?;

    let td_le: Option<[u8; 32]> = t
        .total_difficulty
        .map(|r| r.data.try_into().unwrap_or_default());
    let mut receipt_views: Vec<ReceiptView<'_>> = Vec::new();
    if let (false, Some(record)) = (opts.skip_receipts, &t.receipts) {
        receipt_views.reserve(txs.kinds.len());
        check_receipts(
            record,
            &t.header,
            &mut dec.receipts,
            rebuilt,
            path,
            number,
            network,
            &header,
            &txs.kinds,
            counts,
            &mut receipt_views,
        )?;
    }
    if let Some(record) = &t.proof {
        let block = crate::canonical::BlockId {
            number,
            timestamp,
            hash,
        };
        check_block_proof(record, &mut dec.proof, &block, at, network, opts, counts)?;
    }
    counts.transactions += txs.encodings.len() as u64;
    counts.ommers += ommer_count;
    counts.withdrawals += withdrawals.len() as u64;
    for (a, b) in counts.tx_kinds.iter_mut().zip(txs.kind_counts) {
        *a += b;
    }
    let known_tx_hashes = light_hashes.get(2..).unwrap_or_default();
    let tx_hashes = match light {
        true => TxHashes::known(known_tx_hashes),
        false => TxHashes::new(txs.views.len()),
    };
    let logs = BlockLogs::default();
    let block = VerifiedBlock {
        number,
        header,
        body,
        transactions: &txs.views,
        senders: &txs.senders,
        receipts: &receipt_views,
        withdrawals: &withdrawals,
        total_difficulty: td_le.map(U256::from_le_bytes),
        hash,
        tx_hashes: &tx_hashes,
        logs: &logs,
    };
    if light {
        let hashes = BlockHashes {
            block: hash,
            transactions: known_tx_hashes,
        };
        visitor.block_hashed(out, &block, &hashes);
    } else {
        visitor.block(out, &block);
    }
    Ok(BlockFacts {
        hash,
        parent: *header.parent_hash(),
        td_le,
        difficulty: header.difficulty(),
        aura_step: match header.seal() {
            Seal::Aura { step, .. } => Some(step),
            Seal::Ethash { .. } => None,
        },
        slot: header.slot_number(),
        ok: true,
    })
}

/// Where in the archive a block is, for locating its errors.
#[derive(Clone, Copy)]
struct At<'a> {
    path: &'a Path,
    number: u64,
}

impl<'a> At<'a> {
    fn located(self, e: FormatError) -> FormatError {
        e.in_file(self.path).in_block(self.number)
    }

    /// Maps an RLP error of the record at `offset`.
    fn rlp(self, offset: u64) -> impl Fn(rlp::RlpError) -> FormatError + 'a {
        move |e| rlp_error(e, offset, self.path, self.number)
    }
}

/// What reading a block's transactions needs to locate and bound them.
struct TxsAt<'a> {
    at: At<'a>,
    /// Offset of the body record.
    offset: u64,
    /// The highest transaction type the block's fork allows.
    max_tx_type: u8,
}

impl TxsAt<'_> {
    fn error(&self, idx: usize, e: String) -> FormatError {
        self.at.located(FormatError::at(
            self.offset,
            FormatErrorKind::Rlp(format!("transaction {idx}: {e}")),
        ))
    }

    fn check_type(&self, idx: usize, kind: TxKind) -> Result<(), FormatError> {
        if kind.tx_type() > self.max_tx_type {
            return Err(self.at.located(mismatch(
                self.offset,
                "transaction type",
                format!(
                    "at most {} in this fork (transaction {idx})",
                    self.max_tx_type
                ),
                kind.tx_type(),
            )));
        }
        Ok(())
    }
}

/// One block's transactions as its pass reads them (nothing is allocated for a block without any).
#[derive(Default)]
struct BlockTxs<'a> {
    /// Canonical encodings, the transactions trie's leaves.
    encodings: Vec<&'a [u8]>,
    kinds: Vec<TxKind>,
    kind_counts: [u64; KIND_LABELS.len()],
    /// Decoded transactions (the full path only).
    views: Vec<TxView<'a>>,
    /// Recovered senders, when a signer was given.
    senders: Vec<Result<[u8; 20], SenderError>>,
    blobs: u64,
}

impl<'a> BlockTxs<'a> {
    /// The light path: each transaction's canonical encoding and kind, without decoding its fields (but for
    /// blob transactions, whose blobs count).
    fn read_light(&mut self, body: &BodyView<'a>, at: &TxsAt<'_>) -> Result<(), FormatError> {
        for (idx, item) in body.transactions().enumerate() {
            let item = item.map_err(at.at.rlp(at.offset))?;
            let (canonical, kind) =
                canonical_and_kind(item.raw).map_err(|e| at.error(idx, e.to_string()))?;
            at.check_type(idx, kind)?;
            if kind == TxKind::Eip4844 {
                // Blob counts need the fields; blob transactions are a few per block at most.
                let tx = TxView::decode(item.raw).map_err(|e| at.error(idx, e.to_string()))?;
                self.blobs += tx.blob_versioned_hashes().count() as u64;
            }
            self.encodings.push(canonical);
            self.kinds.push(kind);
            self.kind_counts[kind_slot(kind)] += 1;
        }
        Ok(())
    }

    /// The full path: every transaction decoded, and its sender recovered with `signer` (and whether the
    /// block is past Homestead) when given.
    fn read_full(
        &mut self,
        body: &BodyView<'a>,
        at: &TxsAt<'_>,
        signer: Option<(&Signer, bool)>,
        counts: &mut Counts,
    ) -> Result<(), FormatError> {
        for (idx, item) in body.transactions().enumerate() {
            let item = item.map_err(at.at.rlp(at.offset))?;
            let tx = TxView::decode(item.raw).map_err(|e| at.error(idx, e.to_string()))?;
            at.check_type(idx, tx.kind())?;
            if tx.kind() == TxKind::Eip4844 {
                self.blobs += tx.blob_versioned_hashes().count() as u64;
            }
            self.encodings.push(tx.canonical());
            self.kinds.push(tx.kind());
            self.kind_counts[kind_slot(tx.kind())] += 1;
            if let Some((s, homestead)) = signer {
                let r = s.recover_sender(&tx, homestead);
                match r {
                    Ok(_) => counts.senders_recovered += 1,
                    Err(_) => counts.sender_errors += 1,
                }
                self.senders.push(r);
            }
            self.views.push(tx);
        }
        Ok(())
    }
}

/// The header's transactions root and ommers hash against the body's.
fn check_roots(
    header: &HeaderView<'_>,
    tx_root: &[u8; 32],
    ommers_hash: &[u8; 32],
    body_offset: u64,
) -> Result<(), FormatError> {
    if tx_root != header.transactions_root() {
        return Err(mismatch(
            body_offset,
            "transactions root",
            hex0x(header.transactions_root()),
            hex0x(tx_root),
        ));
    }
    if ommers_hash != header.ommers_hash() {
        return Err(mismatch(
            body_offset,
            "ommers hash",
            hex0x(header.ommers_hash()),
            hex0x(ommers_hash),
        ));
    }
    Ok(())
}

/// The header's `blob_gas_used` against the block's blobs (and blob transactions only where the header has it).
fn check_blob_gas(
    header: &HeaderView<'_>,
    blobs: u64,
    header_offset: u64,
) -> Result<(), FormatError> {
    if let Some(used) = header.blob_gas_used() {
        let want = blobs.saturating_mul(GAS_PER_BLOB);
        if used != want {
            return Err(mismatch(
                header_offset,
                "blob gas used",
                format!("{want} ({blobs} blobs x {GAS_PER_BLOB})"),
                used,
            ));
        }
    } else if blobs > 0 {
        return Err(mismatch(
            header_offset,
            "header field count",
            "20 or more (blob transactions need blob_gas_used)",
            header.field_count(),
        ));
    }
    Ok(())
}

/// Decodes a block's header proof and checks it reaches its anchor (on a known network); counts it by type
/// and by anchor, or as unanchored.
fn check_block_proof(
    record: &crate::formats::e2store::Record<'_>,
    dec: &mut crate::formats::snappy::FramedDecoder,
    block: &crate::canonical::BlockId,
    at: At<'_>,
    network: Option<&Network>,
    opts: &VerifyOptions,
    counts: &mut Counts,
) -> Result<(), FormatError> {
    let proof = super::proof::decode_record(record, dec, at.path, at.number)?;
    *counts.proof_types.entry(proof.proof_type).or_default() += 1;
    let Some(net) = network else {
        return Ok(());
    };
    match super::canonical::check_proof(net, block, &proof, opts) {
        Ok(anchor) => match counts.proven.get_mut(&anchor) {
            Some(n) => *n += 1,
            None => {
                counts.proven.insert(anchor, 1);
            }
        },
        Err(e) if e.is_unanchored() => {
            counts.unanchored += 1;
            counts
                .unanchored_reason
                .get_or_insert_with(|| e.to_string());
        }
        Err(e) => {
            return Err(at.located(FormatError::at(
                record.offset,
                FormatErrorKind::Mismatch {
                    what: "proof (not the canonical chain)",
                    expected: "a proof reaching its anchor".into(),
                    found: e.to_string(),
                },
            )))
        }
    }
    Ok(())
}

/// The header against its network's fork rules (nothing without a network): its number of fields for the fork
/// of its number and timestamp, and proof of work before the merge, none after (zero difficulty and nonce).
fn check_header_fork(
    header: &HeaderView<'_>,
    network: Option<&Network>,
    offset: u64,
) -> Result<(), FormatError> {
    let Some(net) = network else {
        return Ok(());
    };
    let number = header.number();
    let want = net.header_fields(number, header.timestamp());
    if header.field_count() != want {
        return Err(mismatch(
            offset,
            "header field count",
            format!(
                "{want} (the {} header of block {number} at timestamp {} on {})",
                net.header_fork(number, header.timestamp()),
                header.timestamp(),
                net.name
            ),
            header.field_count(),
        ));
    }
    // Pre-merge headers carry the network's seal; post-merge ones are ethash-shaped (prev_randao, zero nonce).
    let want_aura = !net.is_merged(number) && net.pre_merge_seal == PreMergeSeal::Aura;
    if header.is_aura() != want_aura {
        let kind = |aura| {
            if aura {
                "an AuRa seal (step, 65-byte signature)"
            } else {
                "an ethash seal (32-byte mix hash, 8-byte nonce)"
            }
        };
        return Err(mismatch(
            offset,
            "header seal (the network preset's pre_merge_seal, or the merge)",
            kind(want_aura),
            kind(header.is_aura()),
        ));
    }
    if net.is_merged(number) {
        if !header.difficulty().is_zero() || header.nonce() != &[0u8; 8] {
            return Err(mismatch(
                offset,
                "proof-of-stake header (at or after the merge block)",
                "difficulty 0 and nonce 0",
                format!(
                    "difficulty {}, nonce 0x{}",
                    header.difficulty(),
                    hex::encode(header.nonce())
                ),
            ));
        }
        if header.ommers_hash() != &EMPTY_OMMERS_HASH {
            return Err(mismatch(
                offset,
                "ommers hash (no ommers after the merge)",
                hex0x(&EMPTY_OMMERS_HASH),
                hex0x(header.ommers_hash()),
            ));
        }
    } else if header.difficulty().is_zero() {
        return Err(mismatch(
            offset,
            "difficulty (a proof-of-work block, before the merge)",
            "above 0",
            0,
        ));
    }
    Ok(())
}

/// The body's withdrawals against the header: present exactly when the header has `withdrawals_root`
/// (Shanghai on), and rooted there.
fn check_withdrawals(
    header: &HeaderView<'_>,
    body: &BodyView<'_>,
    offset: u64,
) -> Result<Vec<Withdrawal>, FormatError> {
    let rlp_err = |e: rlp::RlpError| FormatError::at(offset, FormatErrorKind::Rlp(e.to_string()));
    match (header.withdrawals_root(), body.withdrawals()) {
        (None, None) => Ok(Vec::new()),
        (Some(_), None) => Err(mismatch(
            offset,
            "body lists",
            "3 (withdrawals, as the header has withdrawals_root)",
            2,
        )),
        (None, Some(_)) => Err(mismatch(
            offset,
            "body lists",
            "2 (no withdrawals_root in the header)",
            3,
        )),
        (Some(root), Some(list)) => {
            let mut items: Vec<&[u8]> = Vec::new();
            let mut out = Vec::new();
            for item in list {
                let item = item.map_err(rlp_err)?;
                out.push(Withdrawal::decode(&item).map_err(rlp_err)?);
                items.push(item.raw);
            }
            let computed = trie::ordered_root(&items);
            if computed.0 != *root {
                return Err(mismatch(
                    offset,
                    "withdrawals root",
                    hex0x(root),
                    hex0x(&computed.0),
                ));
            }
            Ok(out)
        }
    }
}
