//! Prune-manifest throughput beside its floor, in one run (issue 5), single thread ("per core"):
//! - floor: for every block of a synthetic era1 file, snappy-decompress the header and body records (reused
//!   decoders) and keccak256 the transaction bytes (each canonical encoding, found by walking the body RLP);
//! - eraflow: `prune::run` over the same file: full verification without receipts (block hashes, header chain,
//!   transactions root, ommers, accumulator, file sha256) plus every output written (block_hashes.bin,
//!   tx_hashes.bin via the external sort, tx_locations.parquet, ranges.json, manifest.json), goal >= 0.8 of
//!   the floor;
//! - `prune::run` on two threads (the machine's two cores), for the mainnet projection;
//! - verification alone as prune runs it (`verify_no_receipts`), to split the gap between floor and manifest;
//! - the same on a file without transactions, to split the cost into per-block and per-transaction parts
//!   for the mainnet projection in docs/prune.md.
//!
//! Run: `CARGO_TARGET_DIR=target cargo bench --bench prune`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use eraflow::crypto::keccak::keccak256;
use eraflow::execution::body::BodyView;
use eraflow::formats::era1::{self, BlockDecoders, Era1File};
use eraflow::network::Network;
use eraflow::prune::{run, PruneOptions};
use eraflow::synth::era1::{write, SynthOptions};
use eraflow::verify::era1::{verify_file, VerifyOptions};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Blocks per synthetic file (a full era, crossing synthnet's Byzantium and London forks).
const BLOCKS: u64 = 8192;

fn synth(dir: &Path, txs: u32) -> PathBuf {
    let mut o = SynthOptions::new(Network::by_name("synthnet").expect("preset"));
    o.blocks = BLOCKS;
    o.txs_per_block = txs;
    o.seed = 5;
    write(&dir.join(format!("txs{txs}")), &o).expect("synth")[0].clone()
}

/// The floor: decompress header + body, keccak the header and every transaction's bytes. Returns a checksum
/// so nothing is optimised away.
fn floor(path: &Path) -> u64 {
    let file = Era1File::open(path).expect("open");
    let mut dec = BlockDecoders::default();
    let mut acc = 0u64;
    for i in 0..file.block_count() {
        let t = file.block(i).expect("block");
        let h = era1::decompress(&mut dec.header, &t.header, path, t.number).expect("header");
        acc ^= keccak256(h).0[0] as u64;
        let b = era1::decompress(&mut dec.body, &t.body, path, t.number).expect("body");
        let body = BodyView::decode(b).expect("body rlp");
        for tx in body.transaction_encodings() {
            acc = acc.wrapping_add(keccak256(tx.expect("tx")).0[0] as u64);
        }
    }
    acc
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let pool2 = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("pool");
    for txs in [8u32, 0] {
        let path = synth(dir.path(), txs);
        let size = std::fs::metadata(&path).expect("size").len();
        let n_tx = BLOCKS * u64::from(txs);
        eprintln!(
            "prune bench file: {} blocks, {} txs, {} bytes ({:.1} bytes/tx incl. block overhead)",
            BLOCKS,
            n_tx,
            size,
            size as f64 / n_tx.max(1) as f64
        );
        let out = dir.path().join(format!("out{txs}"));
        let mut g = c.benchmark_group(format!("prune_{txs}tx_per_block"));
        g.sample_size(10);
        g.measurement_time(Duration::from_secs(8));
        g.throughput(Throughput::Bytes(size));
        g.bench_function("floor_decompress_keccak_mb", |b| {
            b.iter(|| pool.install(|| black_box(floor(&path))))
        });
        // Verification alone as prune runs it (no receipts, no signer, file sha256): shows what of the
        // manifest's cost is the verification the issue demands and what is writing the lists.
        let vopts = VerifyOptions {
            checksum: true,
            skip_receipts: true,
            senders: false,
            network: None,
        };
        g.bench_function("verify_no_receipts_mb", |b| {
            b.iter(|| pool.install(|| black_box(verify_file(&path, &vopts).ok)))
        });
        g.bench_function("manifest_mb", |b| {
            b.iter(|| {
                pool.install(|| {
                    black_box(
                        run(std::slice::from_ref(&path), &out, &PruneOptions::default())
                            .expect("prune"),
                    )
                })
            })
        });
        // Both cores (shared with other work on this machine: a pessimistic figure for the projection).
        g.bench_function("manifest_2_threads_mb", |b| {
            b.iter(|| {
                pool2.install(|| {
                    black_box(
                        run(std::slice::from_ref(&path), &out, &PruneOptions::default())
                            .expect("prune"),
                    )
                })
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
