//! Full verification of era1 files: every block's hash chain, roots, receipts, total difficulty, the index and
//! the accumulator, with blocks checked in parallel chunks and files in parallel.

use super::era1_receipts::check_receipts;
use super::era1_sequence::sequential_checks;
use super::report::FileReport;
use super::{hex0x, mismatch};
use crate::crypto::keccak::keccak256;
use crate::crypto::signer::{SenderError, Signer};
use crate::execution::body::BodyView;
use crate::execution::header::HeaderView;
use crate::execution::receipt::ReceiptView;
use crate::execution::rlp;
use crate::execution::transaction::{canonical_and_kind, TxKind, TxView};
use crate::execution::trie;
use crate::formats::e2store::{E2StoreReader, RecordType};
use crate::formats::era1::{self, BlockDecoders, Era1File, BLOCKS_PER_ERA};
use crate::formats::{ArchiveKind, ArchiveName};
use crate::formats::{FormatError, FormatErrorKind};
use crate::network::Network;
use alloy_primitives::U256;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// How to verify.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// Network to check fork rules against; `None` takes it from each file name.
    pub network: Option<Network>,
    /// Also compute the sha256 of each file for the report.
    pub checksum: bool,
    /// Also recover every transaction's sender with `signer`, or else the process-wide signer (which must be
    /// initialised, with the algorithm of the files' network, before calling).
    pub senders: bool,
    /// Skip receipts entirely (no decompression, no receipts root, blooms or gas checks): for paths that
    /// need only headers and transactions, like prune manifests.
    pub skip_receipts: bool,
    /// The signer senders are recovered with; `None`: the process signer ([`signer::global`]). Set only to
    /// compare signers side by side in one process (`eraflow bench`); jobs leave it `None`.
    ///
    /// [`signer::global`]: crate::crypto::signer::global
    pub signer: Option<&'static Signer>,
    /// Trusted `(slot, state root)` pairs era states are compared with (see [`crate::verify::anchor`]).
    pub trusted_states: Option<std::sync::Arc<crate::verify::anchor::TrustedStates>>,
}

/// One block that passed every per-block check, as handed to a [`BlockVisitor`].
pub struct VerifiedBlock<'a> {
    /// Its block number.
    pub number: u64,
    /// Its header.
    pub header: HeaderView<'a>,
    /// Its body (transactions and ommers).
    pub body: BodyView<'a>,
    /// Decoded transactions, in order.
    pub transactions: &'a [TxView<'a>],
    /// Recovered senders, parallel to `transactions`; empty unless senders were requested.
    pub senders: &'a [Result<[u8; 20], SenderError>],
    /// Decoded receipts, parallel to `transactions`; empty when receipts are skipped.
    pub receipts: &'a [ReceiptView<'a>],
    /// Total difficulty after this block (checked against the chain in the sequential pass).
    pub total_difficulty: U256,
}

/// Work done on every block during the verification pass, so consumers (export, prune) decode each block once.
///
/// Blocks are visited in parallel chunks; each chunk's output is handed back in block order. Outputs of a file
/// that fails verification must be discarded by the caller (the report says `ok: false`).
pub trait BlockVisitor: Sync {
    /// What one chunk of consecutive blocks produces.
    type Chunk: Send;
    /// A fresh output for the chunk starting at `first_block`.
    fn start_chunk(&self, first_block: u64) -> Self::Chunk;
    /// Adds one verified block to `chunk`.
    fn visit(&self, chunk: &mut Self::Chunk, block: &VerifiedBlock<'_>);

    /// Whether [`visit`](Self::visit) reads `block.transactions`. A visitor that needs only hashes (prune
    /// manifests) returns false and implements [`visit_hashed`](Self::visit_hashed): when receipts are
    /// skipped and no senders are asked for, verification then checks the transactions root without decoding
    /// every transaction field, and hashes the header, the transactions and the trie leaves once each, in one
    /// pass (see [`crate::execution::trie::ordered_root_and_hashes`]).
    fn needs_decoded_transactions(&self) -> bool {
        true
    }

    /// Adds one verified block to `chunk` on that light path: `block.transactions` is empty, `hashes` holds
    /// the block hash and each transaction's hash. The default ignores the hashes and calls `visit`.
    fn visit_hashed(
        &self,
        chunk: &mut Self::Chunk,
        block: &VerifiedBlock<'_>,
        hashes: &BlockHashes<'_>,
    ) {
        let _ = hashes;
        self.visit(chunk, block)
    }
}

/// Hashes the light verification path computed anyway, handed to [`BlockVisitor::visit_hashed`] so the
/// visitor does not hash the same bytes again.
pub struct BlockHashes<'a> {
    /// keccak256 of the header: the block hash.
    pub block: [u8; 32],
    /// Each transaction's hash, in block order.
    pub transactions: &'a [[u8; 32]],
}

/// The visitor of plain verification: does nothing.
pub struct NoVisitor;

impl BlockVisitor for NoVisitor {
    type Chunk = ();
    fn start_chunk(&self, _: u64) {}
    fn visit(&self, _: &mut (), _: &VerifiedBlock<'_>) {}
}

/// What one parallel chunk of blocks produced: per-block facts, counts, errors, and the visitor's output.
type ChunkResult<C> = (Vec<BlockFacts>, Counts, Vec<FormatError>, C);

/// What one block contributed, kept for the sequential checks after the parallel pass.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BlockFacts {
    pub(super) hash: [u8; 32],
    pub(super) parent: [u8; 32],
    pub(super) td_le: [u8; 32],
    pub(super) difficulty: U256,
    pub(super) ok: bool,
}

/// Counts accumulated over a chunk of blocks and merged.
#[derive(Debug, Default)]
pub(super) struct Counts {
    transactions: u64,
    ommers: u64,
    pub(super) receipts: u64,
    pub(super) logs: u64,
    /// Transactions by kind, indexed by [`kind_slot`] (an array: a map lookup per transaction showed in
    /// profiles of prune).
    tx_kinds: [u64; KIND_LABELS.len()],
    pub(super) receipt_forms: BTreeMap<String, u64>,
    header_fields: BTreeMap<usize, u64>,
    senders_recovered: u64,
    sender_errors: u64,
}

impl Counts {
    fn merge(mut self, o: Counts) -> Counts {
        self.transactions += o.transactions;
        self.ommers += o.ommers;
        self.receipts += o.receipts;
        self.logs += o.logs;
        for (a, b) in self.tx_kinds.iter_mut().zip(o.tx_kinds) {
            *a += b;
        }
        for (k, v) in o.receipt_forms {
            *self.receipt_forms.entry(k).or_default() += v;
        }
        self.senders_recovered += o.senders_recovered;
        self.sender_errors += o.sender_errors;
        for (k, v) in o.header_fields {
            *self.header_fields.entry(k).or_default() += v;
        }
        self
    }
}

/// Every [`kind_label`], at its [`kind_slot`].
const KIND_LABELS: [&str; 6] = [
    "legacy_pre155",
    "legacy_eip155",
    "type1",
    "type2",
    "type3",
    "type4",
];

/// Where a transaction kind is counted in [`Counts::tx_kinds`]: the position of its label in [`KIND_LABELS`].
fn kind_slot(kind: TxKind) -> usize {
    match kind {
        TxKind::LegacyPre155 => 0,
        TxKind::Legacy155 => 1,
        TxKind::Eip2930 => 2,
        TxKind::Eip1559 => 3,
        TxKind::Eip4844 => 4,
        TxKind::Eip7702 => 5,
    }
}

/// The report label of a transaction kind (stable names in `verify --json`: legacy_pre155, legacy_eip155,
/// type1..type4).
pub fn kind_label(kind: TxKind) -> &'static str {
    match kind {
        TxKind::LegacyPre155 => "legacy_pre155",
        TxKind::Legacy155 => "legacy_eip155",
        TxKind::Eip2930 => "type1",
        TxKind::Eip1559 => "type2",
        TxKind::Eip4844 => "type3",
        TxKind::Eip7702 => "type4",
    }
}

/// Verifies one era1 file completely and returns its report (never panics; errors are in the report).
pub fn verify_file(path: &Path, opts: &VerifyOptions) -> FileReport {
    verify_file_with(path, opts, &NoVisitor, |_| {})
}

/// Verifies one era1 file and runs `visitor` over every block that passes its per-block checks; `emit` gets
/// each chunk's output in block order, a bounded window of chunks at a time (memory does not grow with the
/// file), while the workers verify the next window. Whether the file as a whole verified is only known from the
/// returned report.
pub fn verify_file_with<V: BlockVisitor>(
    path: &Path,
    opts: &VerifyOptions,
    visitor: &V,
    emit: impl FnMut(V::Chunk) + Send,
) -> FileReport {
    match Era1File::open(path) {
        Ok(file) => verify_opened_with(&file, opts, visitor, emit),
        Err(e) => {
            let mut report = FileReport::start(path, "era1");
            report.error(e);
            report
        }
    }
}

/// [`verify_file_with`] on a file the caller has opened already: export and prune read the same map for the
/// file's sha256, and a second map of the file would double its pages in the process's RSS.
pub fn verify_opened_with<V: BlockVisitor>(
    file: &Era1File,
    opts: &VerifyOptions,
    visitor: &V,
    mut emit: impl FnMut(V::Chunk) + Send,
) -> FileReport {
    let mut report = FileReport::start(file.path(), "era1");
    verify_era1(file, opts, visitor, &mut emit, &mut report);
    // Last: whatever was read must still be the file (it did not shrink under the map or get rewritten).
    if let Err(e) = file.check_unchanged() {
        report.error(e);
    }
    report
}

/// Verifies an opened era1 file into `report` (see [`verify_file_with`]); also the body of the `era1` fuzz
/// target, which opens files from bytes.
pub(crate) fn verify_era1<V: BlockVisitor>(
    file: &Era1File,
    opts: &VerifyOptions,
    visitor: &V,
    emit: &mut (impl FnMut(V::Chunk) + Send),
    report: &mut FileReport,
) {
    let path = file.path();
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let parsed_name = ArchiveName::parse_as(ArchiveKind::Era1, name);
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
        return;
    }
    report.first_block = Some(file.first_block());
    report.last_block = Some(file.last_block());
    report.blocks = file.block_count();
    report.era = Some(file.first_block() / BLOCKS_PER_ERA);
    if opts.checksum {
        report.sha256 = Some(hex::encode(crate::crypto::sha256::sha256(file.bytes())));
    }

    walk_records(file, report);

    // The signer is looked up once per file, never per transaction, and only when senders are asked for.
    let signer: Option<&Signer> = match super::process_signer(opts, network.as_ref(), path, report)
    {
        Ok(s) => s,
        Err(()) => return,
    };

    // Visitors that need only hashes get the light transaction path when nothing else needs the fields.
    let light = opts.skip_receipts && signer.is_none() && !visitor.needs_decoded_transactions();

    // Parallel pass over blocks.
    let n = file.block_count();
    // A block's bytes: its tuple, from its index entry to the next one's (the last to the accumulator). A
    // corrupt index only moves chunk boundaries; verification reports it.
    let offsets = &file.index().offsets;
    let chunks = super::chunk_ranges(n, |i| {
        let at = offsets.get(i as usize).copied().unwrap_or(0);
        let next = offsets
            .get(i as usize + 1)
            .copied()
            .unwrap_or_else(|| file.accumulator_offset());
        next.saturating_sub(at)
    });
    let mut facts = Vec::with_capacity(n as usize);
    let mut counts = Counts::default();
    // A window of chunks in flight: enough to keep every thread busy, bounded so outputs stream out; each
    // window's outputs are emitted while the next one is verified.
    let window = (rayon::current_num_threads() * 2).max(2);
    let work = |group: &[(u64, u64)]| -> Vec<ChunkResult<V::Chunk>> {
        group
            .par_iter()
            .map_init(BlockDecoders::default, |dec, &(s, e)| {
                let mut out = visitor.start_chunk(file.first_block() + s);
                let mut facts = Vec::with_capacity((e - s) as usize);
                let mut counts = Counts::default();
                let mut errors = Vec::new();
                for i in s..e {
                    match check_block(
                        file,
                        i,
                        dec,
                        network.as_ref(),
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
    report.tx_kinds = KIND_LABELS
        .iter()
        .zip(counts.tx_kinds)
        .filter(|(_, v)| *v > 0)
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    report.receipt_forms = counts.receipt_forms;
    report.header_field_counts = counts
        .header_fields
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();

    sequential_checks(
        file,
        &facts,
        network.as_ref(),
        parsed_name.as_ref().ok(),
        report,
    );
    if let Err(e) = parsed_name {
        report.error(FormatError::at(0, e).in_file(path));
    }
}

/// Walks every record in order: checks the tuple order against the index and counts record types.
fn walk_records(file: &Era1File, report: &mut FileReport) {
    let index = file.index();
    let mut next_block = 0usize;
    // Counted by type and named once at the end: naming allocates, and there are four records per block. A
    // file holds a handful of types: a short list searched linearly beats a map lookup per record.
    let mut by_kind: Vec<([u8; 2], u64)> = Vec::new();
    let bytes = file.bytes();
    for rec in E2StoreReader::new(bytes) {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                report.error(e.in_file(file.path()));
                break;
            }
        };
        match by_kind.iter_mut().find(|(k, _)| *k == rec.kind.0) {
            Some((_, n)) => *n += 1,
            None => by_kind.push((rec.kind.0, 1)),
        }
        if rec.kind == RecordType::COMPRESSED_HEADER {
            prefetch_tuples(bytes, &index.offsets, next_block);
            let expected = index.offsets.get(next_block).copied();
            if expected != Some(rec.offset) {
                report.error(
                    FormatError::at(
                        rec.offset,
                        FormatErrorKind::Index(format!(
                            "header record #{next_block} is here, but the index says {}",
                            expected.map_or("nothing".to_string(), |o| format!("offset {o}"))
                        )),
                    )
                    .in_file(file.path())
                    .in_block(index.start + next_block as u64),
                );
            }
            next_block += 1;
        }
    }
    if next_block as u64 != index.len() {
        report.error(
            FormatError::at(
                index.record_offset,
                FormatErrorKind::Mismatch {
                    what: "block count",
                    expected: format!("{} (index)", index.len()),
                    found: format!("{next_block} header records"),
                },
            )
            .in_file(file.path()),
        );
    }
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for (kind, n) in by_kind {
        *counts.entry(RecordType(kind).name()).or_default() += n;
    }
    report.record_counts = counts;
}

/// Blocks between the stages of [`prefetch_tuples`]: far enough ahead to cover a memory access.
const PREFETCH_STEP: usize = 4;

/// Hints the CPU to fetch the record headers of blocks ahead of `block`, which the walk reaches later: each
/// record's position depends on the previous record's length, so without this every record header is a cache
/// miss in a chain. Staged through the index: the header record of block `block + 4 step`, then the body,
/// receipts and total-difficulty record headers of blocks `3`, `2` and `1` steps ahead, each located from
/// record headers fetched one stage earlier. Only hints: nothing read here is trusted or reported.
#[inline]
fn prefetch_tuples(bytes: &[u8], offsets: &[u64], block: usize) {
    let at = |k: usize| offsets.get(block + k * PREFETCH_STEP).copied();
    // The end of the record starting at `pos`, if its header is in the file.
    let next = |pos: u64| -> Option<u64> {
        let start = usize::try_from(pos).ok()?;
        let h = bytes.get(start..start.checked_add(8)?)?;
        let len = u32::from_le_bytes([h[2], h[3], h[4], h[5]]);
        pos.checked_add(8 + u64::from(len))
    };
    prefetch(bytes, at(4));
    let body = at(3).and_then(next);
    prefetch(bytes, body);
    let receipts = at(2).and_then(next).and_then(next);
    prefetch(bytes, receipts);
    let td = at(1).and_then(next).and_then(next).and_then(next);
    prefetch(bytes, td);
}

/// A prefetch hint for the cache line holding `bytes[pos]` (nothing when out of range or not on x86-64).
#[inline(always)]
fn prefetch(bytes: &[u8], pos: Option<u64>) {
    let Some(p) = pos
        .and_then(|p| usize::try_from(p).ok())
        .and_then(|p| bytes.get(p))
    else {
        return;
    };
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, and `p` points into `bytes` anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            std::ptr::from_ref(p).cast(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Decodes and checks one block against itself: roots, receipts, blooms, gas.
#[allow(clippy::too_many_arguments)]
fn check_block<V: BlockVisitor>(
    file: &Era1File,
    i: u64,
    dec: &mut BlockDecoders,
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
    let rlp_err = |offset: u64| move |e: rlp::RlpError| rlp_error(e, offset, path, number);
    let located = |e: FormatError| e.in_file(path).in_block(number);

    let header_raw = era1::decompress(&mut dec.header, &t.header, path, number)?;
    let header = HeaderView::decode(header_raw).map_err(rlp_err(t.header.offset))?;
    *counts
        .header_fields
        .entry(header.field_count())
        .or_default() += 1;
    if header.number() != number {
        return Err(located(mismatch(
            t.header.offset,
            "header number",
            number,
            header.number(),
        )));
    }
    if let Some(net) = network {
        let want = if net.is_london(number) { 16 } else { 15 };
        if header.field_count() != want {
            return Err(located(mismatch(
                t.header.offset,
                "header field count",
                want,
                header.field_count(),
            )));
        }
    }
    // Body: transactions root and ommers hash.
    let body_raw = era1::decompress(&mut dec.body, &t.body, path, number)?;
    let body = BodyView::decode(body_raw).map_err(rlp_err(t.body.offset))?;
    let mut tx_encodings: Vec<&[u8]> = Vec::new();
    let mut kinds: Vec<&'static str> = Vec::new();
    let mut kind_counts = [0u64; KIND_LABELS.len()];
    let mut txs: Vec<TxView<'_>> = Vec::new();
    let mut senders: Vec<Result<[u8; 20], SenderError>> = Vec::new();
    // Light path: [header, ommers list, transactions...] hashes from one batch with the trie leaves.
    let mut light_hashes: Vec<[u8; 32]> = Vec::new();
    let (hash, tx_root, ommers_hash) = if light {
        for (idx, item) in body.transactions().enumerate() {
            let item = item.map_err(rlp_err(t.body.offset))?;
            let (canonical, kind) = canonical_and_kind(item.raw).map_err(|e| {
                located(FormatError::at(
                    t.body.offset,
                    FormatErrorKind::Rlp(format!("transaction {idx}: {e}")),
                ))
            })?;
            tx_encodings.push(canonical);
            kinds.push(kind_label(kind));
            kind_counts[kind_slot(kind)] += 1;
        }
        let root = trie::ordered_root_and_hashes(
            &tx_encodings,
            &[header.raw(), body.ommers_rlp()],
            &mut light_hashes,
        );
        let at = |i: usize| light_hashes.get(i).copied().unwrap_or_default();
        (at(0), root, at(1))
    } else {
        let homestead = network.is_none_or(|n| n.is_homestead(number));
        for (idx, item) in body.transactions().enumerate() {
            let item = item.map_err(rlp_err(t.body.offset))?;
            let tx = TxView::decode(item.raw).map_err(|e| {
                located(FormatError::at(
                    t.body.offset,
                    FormatErrorKind::Rlp(format!("transaction {idx}: {e}")),
                ))
            })?;
            tx_encodings.push(tx.canonical());
            kinds.push(kind_label(tx.kind()));
            kind_counts[kind_slot(tx.kind())] += 1;
            if let Some(s) = signer {
                let r = s.recover_sender(&tx, homestead);
                match r {
                    Ok(_) => counts.senders_recovered += 1,
                    Err(_) => counts.sender_errors += 1,
                }
                senders.push(r);
            }
            txs.push(tx);
        }
        (
            header.hash().0,
            trie::ordered_root(&tx_encodings),
            keccak256(body.ommers_rlp()).0,
        )
    };
    if tx_root.0 != *header.transactions_root() {
        return Err(located(mismatch(
            t.body.offset,
            "transactions root",
            hex0x(header.transactions_root()),
            hex0x(&tx_root.0),
        )));
    }
    if ommers_hash != *header.ommers_hash() {
        return Err(located(mismatch(
            t.body.offset,
            "ommers hash",
            hex0x(header.ommers_hash()),
            hex0x(&ommers_hash),
        )));
    }
    let mut ommer_count = 0u64;
    for o in body.ommers() {
        let o = o.map_err(rlp_err(t.body.offset))?;
        HeaderView::decode(o.raw).map_err(rlp_err(t.body.offset))?;
        ommer_count += 1;
    }
    if body.withdrawals().is_some() {
        return Err(located(mismatch(
            t.body.offset,
            "body lists",
            "2 (pre-merge)",
            "3 (withdrawals)",
        )));
    }

    let td_le: [u8; 32] = t.total_difficulty.data.try_into().unwrap_or_default();
    let mut receipt_views: Vec<ReceiptView<'_>> = Vec::new();
    if !opts.skip_receipts {
        receipt_views.reserve(txs.len());
        check_receipts(
            &t,
            &mut dec.receipts,
            path,
            number,
            network,
            &header,
            &kinds,
            counts,
            &mut receipt_views,
        )?;
    }
    counts.transactions += tx_encodings.len() as u64;
    counts.ommers += ommer_count;
    for (a, b) in counts.tx_kinds.iter_mut().zip(kind_counts) {
        *a += b;
    }
    let block = VerifiedBlock {
        number,
        header,
        body,
        transactions: &txs,
        senders: &senders,
        receipts: &receipt_views,
        total_difficulty: U256::from_le_bytes(td_le),
    };
    if light {
        let hashes = BlockHashes {
            block: hash,
            transactions: light_hashes.get(2..).unwrap_or_default(),
        };
        visitor.visit_hashed(out, &block, &hashes);
    } else {
        visitor.visit(out, &block);
    }
    Ok(BlockFacts {
        hash,
        parent: *header.parent_hash(),
        td_le,
        difficulty: header.difficulty(),
        ok: true,
    })
}

/// An RLP failure located at the record at `offset` of `path`, block `number`.
pub(super) fn rlp_error(e: rlp::RlpError, offset: u64, path: &Path, number: u64) -> FormatError {
    FormatError::at(offset, FormatErrorKind::Rlp(e.to_string()))
        .in_file(path)
        .in_block(number)
}

/// Verifies many files in parallel, then checks continuity between consecutive files of the same network
/// (parent hash and total difficulty across the boundary). Reports come back in input order.
pub fn verify_files(paths: &[std::path::PathBuf], opts: &VerifyOptions) -> Vec<FileReport> {
    verify_files_until(paths, opts, &|| false)
}

/// [`verify_files`], starting no file once `stop()` is true (those files have no report).
pub fn verify_files_until(
    paths: &[std::path::PathBuf],
    opts: &VerifyOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<FileReport> {
    let mut reports: Vec<FileReport> = paths
        .par_iter()
        .filter(|_| !stop())
        .map(|p| verify_file(p, opts))
        .collect();
    super::links::link_era1(&mut reports, |r| {
        super::links::first_parent_hash(Path::new(&r.file))
    });
    reports
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_slots_hold_their_labels() {
        for k in [
            TxKind::LegacyPre155,
            TxKind::Legacy155,
            TxKind::Eip2930,
            TxKind::Eip1559,
            TxKind::Eip4844,
            TxKind::Eip7702,
        ] {
            assert_eq!(KIND_LABELS[kind_slot(k)], kind_label(k));
        }
    }
}
