//! The bodies of the fuzz targets (`fuzz/fuzz_targets/*.rs` are one line each), kept in the library so the
//! ordinary test suite replays the committed corpus through the very same code on the stable toolchain
//! (`tests/it/fuzz_corpus.rs` runs every file of `fuzz/corpus/<target>/` through [`TARGETS`]).
//!
//! A body must return normally for every input: a panic (an index out of bounds, an overflow in a debug
//! build, a failed property below) is a crash. Besides "no panic", bodies assert properties that must hold
//! whatever the bytes: two decoders of the same data agree, a record's offsets chain, what decompresses
//! re-compresses to the same bytes. See `docs/reliability.md` for how to run the targets.

use crate::consensus::{ssz, BeaconBlock, BeaconState, Fork, SignedBeaconBlock, Spec, ALL_FORKS};
use crate::execution::header::HeaderView;
use crate::execution::receipt::{self, Outcome, ReceiptView};
use crate::execution::transaction::{canonical_and_kind, TxView};
use crate::formats::e2store::{read_record_at, E2StoreReader};
use crate::formats::era::EraFile;
use crate::formats::snappy::{compress_framed, FramedDecoder};
use crate::formats::MappedArchive;
use std::path::Path;
use std::sync::OnceLock;

/// A fuzz target: its name (the directory of its corpus, the file of its `fuzz_targets/` entry) and body.
pub type Target = (&'static str, fn(&[u8]));

/// Every target.
pub const TARGETS: &[Target] = &[
    ("e2store", e2store),
    ("snappy", snappy),
    ("era1", era1),
    ("ere", ere),
    ("slim_receipts", slim_receipts),
    ("header", header),
    ("transaction", transaction),
    ("receipts", receipts),
    ("beacon_block", beacon_block),
    ("beacon_state", beacon_state),
    ("era_index", era_index),
];

/// e2store records: the reader never reads past the input, records chain (each starts where the last ended)
/// and reading at a record's offset gives that record.
pub fn e2store(data: &[u8]) {
    let mut next = 0u64;
    for r in E2StoreReader::new(data) {
        match r {
            Ok(rec) => {
                assert_eq!(rec.offset, next, "records must chain");
                assert!(rec.end() <= data.len() as u64, "record past the input");
                let again = read_record_at(data, rec.offset).expect("a record read twice");
                assert_eq!((again.kind, again.data), (rec.kind, rec.data));
                let _ = rec.kind.name();
                next = rec.end();
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
}

/// Snappy framing: what eraflow's decoder accepts, `snap`'s own frame decoder (an independent reading of the
/// same format) must decode to the same bytes when it accepts it too, and the output re-compresses and
/// decompresses to itself.
pub fn snappy(data: &[u8]) {
    let mut dec = FramedDecoder::with_max_output(1 << 20);
    let Ok(out) = dec.decompress(data) else {
        return;
    };
    let out = out.to_vec();
    let mut peer = Vec::new();
    if std::io::Read::read_to_end(&mut snap::read::FrameDecoder::new(data), &mut peer).is_ok() {
        assert_eq!(
            out, peer,
            "eraflow and snap decode the same stream differently"
        );
    }
    let again = compress_framed(&out);
    assert_eq!(
        dec.decompress(&again).expect("own output decompresses"),
        &out[..]
    );
}

/// A worker pool of one thread, so a fuzzing process uses one core.
fn one_thread<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    match POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(1).build().ok()) {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// A whole era1 file, block tuples and all: opened from the bytes and verified as a synthnet file (every
/// check: index, tuples, decompression with the per-kind caps, headers, bodies, receipts, roots, total
/// difficulty, accumulator), without sender recovery.
pub fn era1(data: &[u8]) {
    execution_file(Path::new("synthnet-00000-00000000.era1"), data);
}

/// A whole era1 or ere file opened from the bytes and verified as a synthnet file (every check of the one
/// execution block path), without sender recovery.
fn execution_file(path: &Path, data: &[u8]) {
    let Ok(file) = crate::formats::ExecutionArchive::from_bytes(path, data) else {
        return;
    };
    assert!(file.first_block().checked_add(file.block_count()).is_some());
    static NETWORK: OnceLock<Option<crate::network::Network>> = OnceLock::new();
    let opts = crate::verify::VerifyOptions {
        network: NETWORK
            .get_or_init(|| crate::network::Network::by_name("synthnet").ok())
            .clone(),
        ..Default::default()
    };
    let file = crate::formats::Archive::Execution(file);
    let report =
        one_thread(|| crate::verify::archive(&file, &opts, &crate::verify::NoVisitor, |_| {}));
    assert_eq!(report.ok, report.errors.is_empty());
    for e in &report.errors {
        let _ = crate::error::render(e);
    }
}

/// A whole ere file (dynamic block index, layout read from the first block's entries, any profile) opened from
/// the bytes and verified as a synthnet file, without sender recovery; every block's index entries, when they
/// read, point inside the file at a record of their component's type.
pub fn ere(data: &[u8]) {
    let path = Path::new("synthnet-00000-00000000-noproofs.ere");
    if let Ok(f) = crate::formats::ere::EreFile::from_bytes(path, data) {
        let index = f.index().clone();
        assert!((2..=5).contains(&index.components));
        assert_eq!(index.order().len() as u64, index.components);
        for i in 0..index.count.min(64) {
            if let Ok(b) = f.block(i) {
                assert!(b.header.end() <= data.len() as u64 && b.body.end() <= data.len() as u64);
                assert_eq!(b.number, index.start + i);
            }
        }
    }
    execution_file(path, data);
}

/// A list of slim receipts: each rebuilds into a full receipt that decodes to the same fields, and slims back
/// to the bytes it came from.
pub fn slim_receipts(data: &[u8]) {
    let Ok(list) = receipt::decode_slim_list(data) else {
        return;
    };
    let mut rebuilt = Vec::new();
    for item in list {
        let Ok(slim) = item else { continue };
        let Ok((bloom, _)) = receipt::logs_bloom(slim.logs()) else {
            continue;
        };
        rebuilt.clear();
        slim.write_canonical(&bloom, &mut rebuilt);
        let full = ReceiptView::decode_canonical(&rebuilt).expect("a rebuilt receipt decodes");
        assert_eq!(
            (full.tx_type(), full.cumulative_gas_used(), full.outcome()),
            (slim.tx_type(), slim.cumulative_gas_used(), slim.outcome())
        );
        assert_eq!(full.logs_bloom(), &bloom);
        let again = receipt::encode_slim_list([full]);
        let back: Vec<_> = receipt::decode_slim_list(&again)
            .expect("re-slimmed list")
            .collect();
        assert_eq!(back.len(), 1);
        let back = back[0].as_ref().expect("re-slimmed receipt");
        assert_eq!(
            (back.tx_type(), back.cumulative_gas_used(), back.outcome()),
            (slim.tx_type(), slim.cumulative_gas_used(), slim.outcome())
        );
    }
}

/// An execution block header: every accessor, and its hash is the keccak of its bytes.
pub fn header(data: &[u8]) {
    let Ok(h) = HeaderView::decode(data) else {
        return;
    };
    assert_eq!(h.hash(), crate::crypto::keccak::keccak256(h.raw()));
    let _ = (
        h.field_count(),
        h.parent_hash(),
        h.ommers_hash(),
        h.beneficiary(),
        h.state_root(),
        h.transactions_root(),
        h.receipts_root(),
        h.logs_bloom(),
        h.difficulty(),
        h.number(),
        h.gas_limit(),
        h.gas_used(),
        h.timestamp(),
        h.extra_data(),
        h.mix_hash(),
        h.nonce(),
        h.base_fee_per_gas(),
        h.withdrawals_root(),
        h.blob_gas_used(),
        h.excess_blob_gas(),
        h.parent_beacon_block_root(),
        h.requests_hash(),
    );
}

/// A transaction as it appears in a block body: the full decoder and the shape-only envelope split agree on
/// the canonical bytes and the kind; the canonical bytes decode again to the same transaction; every field
/// reads, and the sender recovery either recovers or says why.
pub fn transaction(data: &[u8]) {
    let Ok(tx) = TxView::decode(data) else {
        return;
    };
    let (canonical, kind) = canonical_and_kind(data).expect("shape-only split of a decodable tx");
    assert_eq!((canonical, kind), (tx.canonical(), tx.kind()));
    let again = TxView::decode_canonical(tx.canonical()).expect("canonical bytes decode");
    assert_eq!((again.kind(), again.hash()), (tx.kind(), tx.hash()));
    let _ = (
        tx.tx_type(),
        tx.chain_id(),
        tx.nonce(),
        tx.gas_price(),
        tx.max_fee_per_gas(),
        tx.max_priority_fee_per_gas(),
        tx.gas_limit(),
        tx.to(),
        tx.value(),
        tx.input(),
        tx.max_fee_per_blob_gas(),
        tx.v(),
        tx.y_parity(),
        tx.r(),
        tx.s(),
        tx.signing_hash(),
    );
    for (_, keys) in tx.access_list() {
        let _ = keys.count();
    }
    let _ = tx.blob_versioned_hashes().count();
    for a in tx.authorizations() {
        let _ = (a.signing_hash(), a.nonce, a.y_parity);
    }
    if let Ok(signer) =
        crate::crypto::signer::init(crate::crypto::signer::SignatureAlgorithm::Secp256k1)
    {
        let _ = signer.recover_sender(&tx, true);
    }
}

/// A block's receipt list: each receipt's canonical bytes decode again to the same receipt, logs and topics
/// read, and the bloom of the logs is computable.
pub fn receipts(data: &[u8]) {
    let Ok(list) = receipt::decode_list(data) else {
        return;
    };
    for r in list {
        let Ok(r) = r else { continue };
        let again = ReceiptView::decode_canonical(r.canonical()).expect("canonical receipt");
        assert_eq!(
            (again.tx_type(), again.cumulative_gas_used()),
            (r.tx_type(), r.cumulative_gas_used())
        );
        match r.outcome() {
            Outcome::Status(_) | Outcome::PostState(_) => {}
        }
        let mut bloom = [0u8; crate::execution::bloom::BLOOM_LEN];
        for log in r.logs() {
            let Ok(log) = log else { continue };
            crate::execution::bloom::accrue(&mut bloom, log.address);
            for t in log.topics() {
                crate::execution::bloom::accrue(&mut bloom, t);
            }
            let _ = (log.topic_count(), log.data.len());
        }
        let _ = r.logs_bloom();
    }
}

/// A beacon block of any fork, signed or not (first byte: fork, and bit 7 for an unsigned `BeaconBlock`):
/// every view, the roots, the execution payload with its transactions and withdrawals, and the execution
/// header rebuilt from it.
pub fn beacon_block(data: &[u8]) {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let fork = ALL_FORKS[(sel & 0x7f) as usize % ALL_FORKS.len()];
    let block = if sel & 0x80 == 0 {
        let Ok(signed) = SignedBeaconBlock::new(bytes, Spec::mainnet(fork)) else {
            return;
        };
        let _ = (signed.root(), signed.signature().len());
        match signed.message() {
            Ok(b) => b,
            Err(_) => return,
        }
    } else {
        match BeaconBlock::new(bytes, Spec::mainnet(fork)) {
            Ok(b) => b,
            Err(_) => return,
        }
    };
    let _ = (
        block.slot(),
        block.proposer_index(),
        block.parent_root(),
        block.state_root(),
        block.root(),
        block.fork(),
    );
    let Ok(body) = block.body() else {
        return;
    };
    let _ = (
        body.root(),
        body.graffiti(),
        body.attestations(),
        body.deposits(),
        body.voluntary_exits(),
        body.proposer_slashings(),
        body.attester_slashings(),
        body.bls_to_execution_changes(),
        body.blob_kzg_commitments(),
        body.execution_requests().map(<[u8]>::len),
    );
    if let Ok(c) = body.blob_kzg_commitment_list() {
        for c in c {
            let _ = crate::verify::payload::versioned_hash(c);
        }
    }
    let Some(Ok(p)) = body.execution_payload() else {
        return;
    };
    let _ = (
        p.parent_hash(),
        p.fee_recipient(),
        p.state_root(),
        p.receipts_root(),
        p.logs_bloom(),
        p.prev_randao(),
        p.block_number(),
        p.gas_limit(),
        p.gas_used(),
        p.timestamp(),
        p.extra_data(),
        p.base_fee_per_gas(),
        p.block_hash(),
        p.withdrawals(),
        p.blob_gas_used(),
        p.excess_blob_gas(),
        p.root(),
    );
    if let Ok(txs) = p.transactions() {
        for t in txs {
            let _ = TxView::decode_canonical(t).map(|t| t.hash());
        }
    }
    if let Ok(h) = crate::verify::payload::header_from_payload(&block) {
        let _ = crate::crypto::keccak::keccak256(h.encode());
    }
}

/// Synthetic states (4 validators) of every fork, built once per thread, with 4 KiB of zeros after each so an
/// input may lengthen one. Inputs edit them in place and undo their edits (copying ~2.7 MB per run would
/// cost more than the run).
fn with_state_templates<R>(f: impl FnOnce(&mut [Vec<u8>]) -> R) -> R {
    thread_local! {
        static T: std::cell::RefCell<Vec<Vec<u8>>> = std::cell::RefCell::new(
            ALL_FORKS
                .iter()
                .map(|&f| {
                    let mut s = crate::consensus::synth::state(Spec::mainnet(f), 4, 1);
                    s.resize(s.len() + TEMPLATE_SLACK, 0);
                    s
                })
                .collect(),
        );
    }
    T.with(|t| f(&mut t.borrow_mut()))
}

/// Zeros after each state template.
const TEMPLATE_SLACK: usize = 4096;

/// Fields hashed on every input: the variable-size ones (lists, and containers holding lists: where offsets
/// and limits are read) and small fixed ones. A fixed-size field is read by its size alone, so hashing the
/// big ones (the ~2.5 MB of root and randao vectors, the sync committees) would only slow each run down.
fn cheap_to_hash(ty: &ssz::Ty) -> bool {
    ty.fixed_size().is_none_or(|n| n <= 1024)
}

/// A `BeaconState`, as edits of a synthetic state: a real state is ~2.7 MB at least (its vectors are fixed
/// size), too big to fuzz byte by byte. Input: fork (1 byte), a length change (i16 LE, bytes), then 5-byte
/// edits (u32 LE position, u8 XOR mask; a position with the top bit set counts from the end, where the
/// offsets and the variable-size fields are). Every view reads, and every variable-size field hashes.
pub fn beacon_state(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let idx = sel as usize % ALL_FORKS.len();
    let fork = ALL_FORKS[idx];
    let (adjust, edits) = match rest {
        [a, b, edits @ ..] => (i16::from_le_bytes([*a, *b]) as isize, edits),
        _ => (0, &[][..]),
    };
    with_state_templates(|templates| {
        let buf = &mut templates[idx];
        let base_len = buf.len() - TEMPLATE_SLACK;
        let len = (base_len as isize + adjust).clamp(0, buf.len() as isize) as usize;
        let mut undo = Vec::with_capacity(edits.len() / 5);
        if len > 0 {
            for e in edits.chunks_exact(5) {
                let at = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
                let i = if at & 0x8000_0000 != 0 {
                    len - 1 - (at & 0x7fff_ffff) as usize % len
                } else {
                    at as usize % len
                };
                undo.push((i, buf[i]));
                buf[i] ^= e[4];
            }
        }
        state_views(&buf[..len], fork);
        for (i, v) in undo.into_iter().rev() {
            buf[i] = v;
        }
    })
}

fn state_views(bytes: &[u8], fork: Fork) {
    let Ok(s) = BeaconState::new(bytes, Spec::mainnet(fork)) else {
        return;
    };
    let _ = (
        s.slot(),
        s.genesis_time(),
        s.genesis_validators_root(),
        s.block_root(8191),
        s.state_root(0),
        s.latest_block_header().root(),
        s.historical_roots(),
        s.historical_summaries(),
        s.validator_count(),
    );
    let c = Spec::mainnet(fork).state_schema();
    for f in c.fields {
        let Some(b) = s.field(f.name) else {
            continue;
        };
        if cheap_to_hash(f.ty) {
            let _ = ssz::hash_tree_root(f.ty, b);
        }
    }
    if let Some(h) = ssz::field_container(c, "latest_execution_payload_header") {
        if let Some(b) = s.field("latest_execution_payload_header") {
            let _ = ssz::container_root(h, b);
        }
    }
}

/// An era file's slot indices and the records they point to (no decompression).
pub fn era_index(data: &[u8]) {
    let Ok(f) = EraFile::from_bytes(Path::new("synthnet-00001-00000000.era"), data) else {
        return;
    };
    let _ = (f.era(), f.state_record());
    if let Some(idx) = f.block_index() {
        assert_eq!(idx.offsets.len() as u64, crate::formats::era::SLOTS_PER_ERA);
        assert!(idx
            .start_slot
            .checked_add(2 * crate::formats::era::SLOTS_PER_ERA)
            .is_some());
        for i in 0..idx.offsets.len() as u64 {
            let _ = f.block_record(idx.start_slot + i);
        }
    }
    for r in E2StoreReader::new(f.bytes()) {
        let _ = r.map(|r| r.kind.name());
    }
}
